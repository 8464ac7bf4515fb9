#!/usr/bin/env python3
"""A scripted browser for tests, given to authdeck as $BROWSER: it opens the URL it receives as its last
argument with the sandbox's scripted approval added, follows redirects to authdeck's loopback receiver, and
submits form_post pages (Apple's shape) as a browser would. It logs what it did to $SCRIPTED_BROWSER_LOG."""
import html.parser
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

LOG = os.environ.get("SCRIPTED_BROWSER_LOG")


def log(line):
    if LOG:
        with open(LOG, "a") as handle:
            handle.write(line + "\n")


class FormFinder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.action = None
        self.fields = {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form" and (attrs.get("method") or "").lower() == "post":
            self.action = attrs.get("action")
        elif tag == "input" and attrs.get("name") and self.action is not None:
            self.fields[attrs["name"]] = attrs.get("value") or ""


def fetch(request):
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace"), response.geturl()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace"), error.geturl()


def main():
    url = sys.argv[-1]
    user = os.environ.get("SANDBOX_USER", "ada")
    decision = os.environ.get("SANDBOX_DECISION", "approve")
    if os.environ.get("SCRIPTED_BROWSER_PLAIN") != "1":
        url += ("&" if "?" in url else "?") + urllib.parse.urlencode(
            {"sandbox_user": user, "sandbox_auto": decision})
    log("open " + url.split("?")[0])
    status, body, final = fetch(url)
    finder = FormFinder()
    finder.feed(body)
    if finder.action:
        data = urllib.parse.urlencode(finder.fields).encode()
        status, body, final = fetch(urllib.request.Request(finder.action, data=data, method="POST"))
        log("form_post %s -> %d" % (finder.action.split("?")[0], status))
    log("done %d %s" % (status, final.split("?")[0]))


if __name__ == "__main__":
    main()
