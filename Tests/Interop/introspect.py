#!/usr/bin/env python3
"""Asks a server's introspection endpoint (RFC 7662) about a token, as a resource server would, authenticating as
the client named in the arguments with HTTP Basic (RFC 6749 2.3.1): prints the HTTP status, then the JSON body.

    introspect.py ENDPOINT CLIENT_ID      (standard input: the token, then the client secret, one a line)"""
import base64
import sys
import urllib.error
import urllib.parse
import urllib.request

endpoint, client_id = sys.argv[1:3]
token, secret = sys.stdin.read().strip().split("\n")[:2]
# RFC 6749 2.3.1: each half form-encoded before the colon joins them.
pair = "%s:%s" % (urllib.parse.quote_plus(client_id), urllib.parse.quote_plus(secret.strip()))
credentials = base64.b64encode(pair.encode()).decode()
body = urllib.parse.urlencode({"token": token.strip()}).encode()
request = urllib.request.Request(endpoint, data=body, method="POST", headers={
    "Authorization": "Basic " + credentials, "Content-Type": "application/x-www-form-urlencoded",
    "Accept": "application/json"})
try:
    with urllib.request.urlopen(request, timeout=10) as response:
        status, text = response.status, response.read().decode()
except urllib.error.HTTPError as error:
    status, text = error.code, error.read().decode(errors="replace")
print(status)
print(text.replace("\n", " "))
