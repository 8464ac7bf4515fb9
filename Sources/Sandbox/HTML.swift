import AuthCore

/// Small pieces of HTML for the sandbox's pages; every value from a request goes through `escape`.
enum HTML {
    static func escape(_ text: String) -> String { HTMLText.escape(text) }

    /// A whole page with the sandbox's plain look.
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <style>body{font-family:sans-serif;max-width:36em;margin:2em auto;padding:0 1em}
        label{display:block;margin:.4em 0}button{margin-right:1em;padding:.4em 1.2em}
        .note{color:#555;font-size:.9em}</style></head>
        <body><h1>\(escape(title))</h1>
        \(body)
        <p class="note">authdeck sandbox: a local test server. No real account is involved.</p>
        </body></html>

        """
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">"
    }
}
