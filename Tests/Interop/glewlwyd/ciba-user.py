#!/usr/bin/env python3
"""Plays the user of a CIBA request at glewlwyd, as its own web app would, through the routes its docs/OIDC.md and
test/glewlwyd_oidc_ciba.c use: signs in (POST /api/auth/), grants the client a scope (PUT /api/auth/grant/CLIENT),
waits for the request in GET /api/PLUGIN/ciba_user_list, then opens its connect_uri (approve) or cancel_uri (deny).

    ciba-user.py BASE PLUGIN USER CLIENT approve|deny     (the user's password in $CIBA_USER_PASSWORD)

Prints one JSON line: the binding message glewlwyd showed the user, and where its check redirected."""
import http.cookiejar
import json
import os
import sys
import time
import urllib.error
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def main():
    base, plugin, user, client, verdict = sys.argv[1:6]
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), NoRedirect)

    def call(method, url, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with opener.open(request, timeout=10) as response:
                return response.status, response.read().decode(), response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace"), error.headers

    status, _, _ = call("POST", base + "/api/auth/", {"username": user, "password": os.environ["CIBA_USER_PASSWORD"]})
    if status != 200:
        raise SystemExit("sign-in as %s: HTTP %d" % (user, status))
    status, _, _ = call("PUT", base + "/api/auth/grant/" + client, {"scope": "openid"})
    if status != 200:
        raise SystemExit("grant to %s: HTTP %d" % (client, status))
    deadline = time.time() + 60
    while True:
        status, text, _ = call("GET", base + "/api/" + plugin + "/ciba_user_list")
        requests = json.loads(text) if status == 200 else []
        if requests:
            break
        if time.time() > deadline:
            raise SystemExit("no CIBA request for %s within 60 s" % user)
        time.sleep(0.2)
    request = requests[0]
    url = request["connect_uri"] + "&g_continue" if verdict == "approve" else request["cancel_uri"]
    status, _, headers = call("GET", url)
    print(json.dumps({"bindingMessage": request.get("binding_message"), "status": status,
                      "location": headers.get("Location", "")}), flush=True)


if __name__ == "__main__":
    main()
