#!/usr/bin/env python3
"""Asks a server's UserInfo endpoint (argument) about the token on standard input, as a resource server would: prints
the HTTP status, then the JSON body when there is one.

With a second line on standard input (a DPoP proof), the token goes as `Authorization: DPoP` with the proof in the
`DPoP` header (RFC 9449 section 7.1), and four lines are printed: status, body (or {}), the answer's DPoP-Nonce and
its WWW-Authenticate (each empty when absent)."""
import sys
import urllib.error
import urllib.request

lines = sys.stdin.read().strip().split("\n")
token = lines[0].strip()
proof = lines[1].strip() if len(lines) > 1 else None
headers = {"Authorization": ("DPoP " if proof else "Bearer ") + token, "Accept": "application/json"}
if proof:
    headers["DPoP"] = proof
request = urllib.request.Request(sys.argv[1], headers=headers)
try:
    with urllib.request.urlopen(request, timeout=10) as response:
        status, body, answer = response.status, response.read().decode(), response.headers
except urllib.error.HTTPError as error:
    status, body, answer = error.code, None, error.headers
print(status)
if proof:
    print((body or "{}").replace("\n", " "))
    print(answer.get("DPoP-Nonce", ""))
    print(answer.get("WWW-Authenticate", ""))
elif body is not None:
    print(body)
