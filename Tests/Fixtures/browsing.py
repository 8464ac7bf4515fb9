"""What the test browsers (Tests/authdeckTests/Fixtures/scripted-browser.py and Tests/Interop/interop-browser.py)
share: a log of their steps, and the forms a page holds."""
import html.parser


def step_log(path):
    """A function that appends one line to the file at `path`, or does nothing when there is no path."""
    def log(line):
        if path:
            with open(path, "a") as handle:
                handle.write(line + "\n")
    return log


class Forms(html.parser.HTMLParser):
    """The forms on a page, in order: each one's method (lowercase), action, input values (hidden ones too) and
    named submit buttons."""
    def __init__(self):
        super().__init__()
        self.forms = []

    def handle_starttag(self, tag, attributes):
        attributes = dict(attributes)
        if tag == "form":
            self.forms.append({
                "method": (attributes.get("method") or "get").lower(), "action": attributes.get("action"),
                "fields": {}, "buttons": []})
        elif tag in ("input", "button") and self.forms and attributes.get("name"):
            kind = attributes.get("type", "submit" if tag == "button" else "text")
            if kind == "submit":
                self.forms[-1]["buttons"].append((attributes["name"], attributes.get("value", "")))
            else:
                self.forms[-1]["fields"][attributes["name"]] = attributes.get("value", "")
