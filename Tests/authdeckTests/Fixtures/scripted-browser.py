#!/usr/bin/env python3
"""A scripted browser for tests, given to authdeck as $BROWSER: it opens the URL it receives as its last
argument with the sandbox's scripted approval added, follows redirects to authdeck's loopback receiver, and
submits form_post pages (Apple's shape) as a browser would. A redirect to authdeck:// is handed to
`$SCRIPTED_BROWSER_AUTHDECK open-url URL`, as the desktop's URL handler would. It waits
$SCRIPTED_BROWSER_DELAY seconds first (none by default), as a person would, and logs what it did to
$SCRIPTED_BROWSER_LOG."""
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "Fixtures"))
from browsing import Forms, step_log  # noqa: E402 (Tests/Fixtures/browsing.py)

log = step_log(os.environ.get("SCRIPTED_BROWSER_LOG"))


def hand_over(url):
    """What the desktop does with an authdeck:// URL: run the registered handler, `authdeck open-url URL`."""
    binary = os.environ.get("SCRIPTED_BROWSER_AUTHDECK")
    log("scheme redirect " + url.split("?")[0])
    if not binary:
        return 0, "", url
    done = subprocess.run([binary, "open-url", url], capture_output=True, timeout=20)
    return (200 if done.returncode == 0 else 500), "", url


def fetch(request):
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode("utf-8", "replace"), response.geturl()
    except urllib.error.HTTPError as error:
        # urllib refuses to follow a redirect to another scheme; a browser hands it to the scheme's handler.
        if error.code in (301, 302, 303, 307) and error.geturl().startswith("authdeck:"):
            return hand_over(error.geturl())
        return error.code, error.read().decode("utf-8", "replace"), error.geturl()


def main():
    time.sleep(float(os.environ.get("SCRIPTED_BROWSER_DELAY", "0")))
    url = sys.argv[-1]
    user = os.environ.get("SANDBOX_USER", "ada")
    decision = os.environ.get("SANDBOX_DECISION", "approve")
    if os.environ.get("SCRIPTED_BROWSER_PLAIN") != "1":
        url += ("&" if "?" in url else "?") + urllib.parse.urlencode(
            {"sandbox_user": user, "sandbox_auto": decision})
    log("open " + url.split("?")[0])
    status, body, final = fetch(url)
    page = Forms()
    page.feed(body)
    form = next((form for form in page.forms if form["method"] == "post"), None)
    if form and form["action"]:
        data = urllib.parse.urlencode(form["fields"]).encode()
        status, body, final = fetch(urllib.request.Request(form["action"], data=data, method="POST"))
        log("form_post %s -> %d" % (form["action"].split("?")[0], status))
    log("done %d %s" % (status, final.split("?")[0]))


if __name__ == "__main__":
    main()
