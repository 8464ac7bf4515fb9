#!/usr/bin/env python3
"""A scripted browser for the interoperability suite, run by authdeck as $BROWSER with one URL.

It signs in at the server's own login (glewlwyd's login API and grant API; django-oauth-toolkit's login form and
consent form), approves or denies as INTEROP_DECISION says (approve by default), and follows the server's redirect to
authdeck's loopback receiver as a browser would. Every step is appended to INTEROP_BROWSER_LOG.

An end-session URL (RP-Initiated Logout) ends the user's session at the server as its pages do, then follows the
redirect back to authdeck. With INTEROP_COOKIE_JAR the cookies live in that file from one run to the next, as a
browser's do, so the sign-out meets the session the sign-in made; `interop-browser.py --signed-in ORIGIN` then logs
whether glewlwyd still has a signed-in user for them.
"""
import http.cookiejar
import json
import re
import os
import ssl
import sys
import urllib.error
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "Fixtures"))
from browsing import Forms, step_log  # noqa: E402 (Tests/Fixtures/browsing.py)

USER = os.environ.get("INTEROP_USER", "alice")
PASSWORD = os.environ.get("INTEROP_PASSWORD", "alice-password-1")
DECISION = os.environ.get("INTEROP_DECISION", "approve")
# When set, the signature of a JWT-secured response (`response=`) is changed on its way to authdeck, as an attacker
# in the browser would, so the refusal can be seen.
CORRUPT_RESPONSE = os.environ.get("INTEROP_CORRUPT_RESPONSE") == "1"
log = step_log(os.environ.get("INTEROP_BROWSER_LOG"))
# The `iss` to put in the authorization response on its way to authdeck ("-": none), as a mix-up would.
REWRITE_ISS = os.environ.get("INTEROP_REWRITE_ISS")
# The private CA of a server that speaks HTTPS (the TLS glewlwyd): the browser trusts it as a user's browser would,
# without SSL_CERT_FILE, which authdeck would read too.
CA_FILE = os.environ.get("INTEROP_CA_FILE")
COOKIE_JAR = os.environ.get("INTEROP_COOKIE_JAR")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Browser:
    def __init__(self):
        self.cookies = http.cookiejar.LWPCookieJar(COOKIE_JAR) if COOKIE_JAR else http.cookiejar.CookieJar()
        if COOKIE_JAR and os.path.exists(COOKIE_JAR):
            self.cookies.load(ignore_discard=True)
        handlers = [urllib.request.HTTPCookieProcessor(self.cookies), NoRedirect]
        if CA_FILE:
            handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=CA_FILE)))
        self.opener = urllib.request.build_opener(*handlers)

    def send(self, method, url, form=None, json_body=None):
        headers = {}
        data = None
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        if json_body is not None:
            data = json.dumps(json_body).encode()
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self.opener.open(request, timeout=20) as response:
                status, location, body = response.status, response.headers.get("Location"), response.read()
        except urllib.error.HTTPError as error:
            status, location, body = error.code, error.headers.get("Location"), error.read()
        location = urllib.parse.urljoin(url, location) if location else None
        log("%s %s -> %d%s" % (method, url.split("?")[0], status, " -> " + location.split("?")[0] if location else ""))
        return status, location, body.decode(errors="replace")

    def keep_cookies(self):
        if COOKIE_JAR:
            self.cookies.save(ignore_discard=True)

    def follow(self, url, limit=10):
        """GETs until a page that is not a redirect, or authdeck's loopback (which ends the browser's part)."""
        for _ in range(limit):
            url = authorization_response(url)
            if CORRUPT_RESPONSE:
                url = corrupted(url)
            status, location, body = self.send("GET", url)
            if not location or not (300 <= status < 400):
                return url, status, body
            url = location
        raise SystemExit("too many redirects")


def authorization_response(url):
    """The redirect that carries the server's answer (code or error) to authdeck: logs the `iss` values the server
    put in it, and with INTEROP_REWRITE_ISS set replaces them, as a mixed-up or tampered response would."""
    parts = urllib.parse.urlsplit(url)
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    if not any(name in ("code", "error") for name, _ in pairs):
        return url
    log("iss " + json.dumps([value for name, value in pairs if name == "iss"]))
    if REWRITE_ISS is None:
        return url
    pairs = [(name, value) for name, value in pairs if name != "iss"]
    if REWRITE_ISS != "-":
        pairs.append(("iss", REWRITE_ISS))
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(pairs)))
def corrupted(url):
    """The URL with one character in the middle of its `response` JWT's signature changed."""
    parts = urllib.parse.urlsplit(url)
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    if not any(name == "response" for name, _ in pairs):
        return url
    changed = []
    for name, value in pairs:
        if name == "response" and value.count(".") == 2:
            head, signature = value.rsplit(".", 1)
            middle = len(signature) // 2
            swapped = "B" if signature[middle] == "A" else "A"
            value = head + "." + signature[:middle] + swapped + signature[middle + 1:]
            log("corrupted the response signature")
        changed.append((name, value))
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(changed)))


def glewlwyd(browser, url):
    """glewlwyd answers the authorize (or device) URL with its login page; its login and grant APIs stand in for the
    page's script, then `g_continue` on the callback URL resumes the request, as the page does."""
    status, location, _ = browser.send("GET", url)
    if not location or "login.html" not in location:
        return browser.follow(location) if location else None
    query = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)
    origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlparse(url))
    callback = query["callback_url"][0]
    browser.send("POST", origin + "/api/auth/", json_body={"username": USER, "password": PASSWORD})
    client = query.get("client_id", [None])[0]
    if client and DECISION == "approve":
        browser.send("PUT", origin + "/api/auth/grant/" + urllib.parse.quote(client),
                     json_body={"scope": query.get("scope", ["openid"])[0]})
        # Rich authorization requests: the user's consent to each type asked for, through the plugin's rar API.
        plugin = urllib.parse.urlparse(url).path.split("/")[2]
        asked = urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get("authorization_details")
        for detail in json.loads(asked[0]) if asked else []:
            browser.send("PUT", "%s/api/%s/rar/%s/%s/1" % (origin, plugin, urllib.parse.quote(client),
                                                           urllib.parse.quote(detail["type"])))
    browser.follow(callback + ("&" if "?" in callback else "?") + "g_continue")


def glewlwyd_end_session(browser, url):
    """glewlwyd's end_session answers with its login page and prompt=end_session; the page's script (EndSession.js)
    lists the session's clients, deletes the OpenID Connect session, ends the user's glewlwyd session and then goes
    to callback_url (the post-logout redirect with the state): the same calls, in that order."""
    status, location, _ = browser.send("GET", url)
    if not location or "login.html" not in location:
        return browser.follow(location) if location else None
    query = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)
    log("end_session prompt %s" % query.get("prompt", ["-"])[0])
    if query.get("prompt") != ["end_session"]:
        return None
    origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlparse(url))
    api = origin + "/api/" + query["plugin"][0]
    sid = urllib.parse.quote(query["sid"][0], safe="")
    target = query.get("post_redirect_to", [None])[0]
    suffix = "?post_redirect_to=" + urllib.parse.quote(target, safe="") if target else ""
    browser.send("GET", api + "/session/" + sid + "/" + urllib.parse.quote(query["client_id"][0], safe="") + suffix)
    browser.send("DELETE", api + "/session/" + sid)
    browser.send("DELETE", origin + "/api/auth/")
    if "callback_url" in query:
        browser.follow(query["callback_url"][0])


def signed_in(browser, origin):
    """Whether glewlwyd has a signed-in user for this browser's cookies: its profile API answers 200 or 401."""
    status, _, _ = browser.send("GET", origin + "/api/profile_list")
    log("signed in: %s" % ("yes" if status == 200 else "no (%d)" % status))


def django(browser, url):
    """django-oauth-toolkit: its login form, then its consent (or device code and confirm) form."""
    page_url, status, body = browser.follow(url)
    for _ in range(4):
        parser = Forms()
        parser.feed(body)
        if not parser.forms:
            return
        form = parser.forms[0]
        fields = dict(form["fields"])
        buttons = dict(form["buttons"])
        if "password" in fields:
            fields.update(username=USER, password=PASSWORD)
        elif "allow" in buttons:
            if DECISION == "approve":
                fields["allow"] = buttons["allow"]
        elif "action" in buttons:
            fields["action"] = "accept" if DECISION == "approve" else "deny"
        target = urllib.parse.urljoin(page_url, form["action"] or page_url)
        status, location, body = browser.send("POST", target, form=fields)
        if not location:
            return
        if "/callback" in location or not location.startswith(target.split("/o/")[0].split("/accounts/")[0]):
            browser.follow(location)  # to authdeck's loopback receiver
            return
        page_url, status, body = browser.follow(location)


def main():
    url = sys.argv[-1]
    browser = Browser()
    try:
        if sys.argv[1:2] == ["--signed-in"]:
            signed_in(browser, url)
        elif "/api/oidc" in url and "/end_session" in url:
            glewlwyd_end_session(browser, url)
        elif "/api/oidc" in url:
            glewlwyd(browser, url)
        else:
            django(browser, url)
    except BaseException as error:  # the log is the only place a failure can go
        log("error: %r" % (error,))
    # Kept even when a step failed, as a browser profile keeps what it was given.
    browser.keep_cookies()


if __name__ == "__main__":
    main()
