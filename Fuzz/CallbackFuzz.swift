// Redirects as a browser, `open-url` or a paste hands them over: CallbackParser.parse(url:), parse(form:) and
// FormEncoding.decode, all on text an attacker can shape (a malicious page can redirect to the loopback port).
import AuthCore

#if canImport(Glibc)
    import Glibc
#endif

/// The seeds `scripts/fuzz.sh --write-seeds` keeps for this target.
func fuzzSeeds() -> [(name: String, bytes: [UInt8])] { callbackSeeds() }

/// One input of libFuzzer's.
func fuzzOne(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)

    // Decoding is lossless: what decodes re-encodes to text that decodes to the same pairs, in order.
    if let pairs = FormEncoding.decode(Substring(text)) {
        let again = FormEncoding.decode(Substring(FormEncoding.encode(pairs)))
        invariant(
            again.map { $0.map { [$0.0, $0.1] } } == pairs.map { [$0.0, $0.1] },
            "form pairs change across encode and decode")
    }

    if let callback = try? CallbackParser.parse(form: bytes) {
        checkRoundTrip(callback)
        // A body is a query: the same text after `?` must give the same callback. Only for printable ASCII
        // without `#`, since a URL (rightly) ends its query at a fragment and refuses spaces.
        if bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }),
            let fromURL = try? CallbackParser.parse(url: "authdeck://callback?" + text)
        {
            invariant(fromURL == callback, "form body and query disagree")
        }
    }
    if let callback = try? CallbackParser.parse(url: text) {
        checkRoundTrip(callback)
    }
}

/// parse → encode → parse gives the same Callback, as a form body and as a redirect URL.
private func checkRoundTrip(_ callback: Callback) {
    let fields: [(String, String?)] = [
        ("code", callback.code), ("state", callback.state), ("error", callback.error),
        ("error_description", callback.errorDescription), ("id_token", callback.idToken), ("token", callback.token),
        ("iss", callback.issuer), ("response", callback.response), ("login_type", callback.loginType),
        ("authMethod", callback.authMethod),
    ]
    let body = FormEncoding.encode(fields.compactMap { name, value in value.map { (name, $0) } })
    do {
        let fromForm = try CallbackParser.parse(form: Array(body.utf8))
        invariant(fromForm == callback, "form round trip changed the callback")
        let fromURL = try CallbackParser.parse(url: "http://127.0.0.1:8400/callback?" + body)
        invariant(fromURL == callback, "URL round trip changed the callback")
    } catch {
        // Re-encoding never makes a callback larger than 3 times its input (each byte becomes at most %XX),
        // so only a near-limit callback may grow past 16 KiB.
        invariant(error == .tooLarge, "a re-encoded callback was refused: \(error)")
    }
}

private func callbackSeeds() -> [(name: String, bytes: [UInt8])] {
    let texts = [
        ("loopback-code", "http://127.0.0.1:53682/callback?code=4%2F0AbCdEf&state=xyz123&scope=email%20openid"),
        ("scheme-code", "authdeck://callback?code=abc&state=s1"),
        ("denied", "http://127.0.0.1:8400/callback?error=access_denied&error_description=User+denied&state=s"),
        ("fragment", "https://relay.example/cb#state=abc&id_token=eyJhbGciOiJFUzI1NiJ9.e30.sig&code=c"),
        ("portal-token", "http://127.0.0.1:9000/callback?token=tok-123&state=st"),
        ("form-post", "code=c0de&state=st4te&id_token=eyJ0.eyJ1.c2ln&user=%7B%22name%22%3A%7B%7D%7D"),
        ("duplicate-state", "http://127.0.0.1/callback?state=a&state=b&code=c"),
        ("broken-escape", "http://127.0.0.1/callback?code=%ZZ&state=s"),
        ("bad-utf8-escape", "code=%C3%28&state=s"),
        ("no-scheme", "127.0.0.1/callback?code=c"),
        ("unicode", "authdeck://callback?code=%E2%9C%93&state=%F0%9F%94%91+key"),
    ]
    return texts.map { ($0.0, Array($0.1.utf8)) }
}
