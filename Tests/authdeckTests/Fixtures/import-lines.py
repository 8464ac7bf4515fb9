#!/usr/bin/env python3
"""Writes a `store import` file with Python's json.dumps, and beside it what authdeck must answer for it, worked out
here in Python (never by authdeck): the `list --json` objects (less `status`, which depends on the clock) and the
token each session hands out.

usage: import-lines.py COUNT LINES_FILE EXPECTED_FILE [BAD_LINE]
       import-lines.py compare EXPECTED_FILE LIST_JSON_FILE     prints "ok" or the first difference, exits 0 or 1

COUNT plain sessions (the shape of scripts/bench.py's) follow a few odd ones: unicode, escapes, control characters,
U+0000, nulls, fields left out, very long fields, dates with offsets and fractions. With BAD_LINE, that line (1-based)
of the file is replaced by one that is not JSON.
"""
import datetime
import json
import math
import sys

if sys.argv[1] == "compare":
    with open(sys.argv[2], encoding="utf-8") as handle:
        expected = json.load(handle)["list"]
    with open(sys.argv[3], encoding="utf-8") as handle:
        listed = json.load(handle)
    if len(listed) != len(expected):
        print("%d sessions listed, %d written" % (len(listed), len(expected)))
        sys.exit(1)
    for want, got in zip(expected, listed):
        if set(got) != set(want) | {"status"}:
            print("fields of %r: %r" % (want["key"], sorted(got)))
            sys.exit(1)
        for name, value in want.items():
            # A null createdAt: the line had none, so any date of the import will do.
            if name == "createdAt" and value is None:
                continue
            if got[name] != value:
                print("%r: %s is %s, Python wrote %s" % (want["key"], name, repr(got[name])[:80], repr(value)[:80]))
                sys.exit(1)
        if want["expiresAt"] is not None and want["expiresAt"] > "2090" and got["status"] != "active":
            print("%r: status %r" % (want["key"], got["status"]))
            sys.exit(1)
    print("ok")
    sys.exit(0)

count = int(sys.argv[1])
lines_file, expected_file = sys.argv[2], sys.argv[3]
bad_line = int(sys.argv[4]) if len(sys.argv) > 4 else None

odd = [
    {"key": "odd-unicode", "backend": "direct", "provider": "google", "subject": "\u00fcn\u00efc\u00f8d\u00e9 \u2603",
     "email": "\u6f22\u5b57@example.com", "issuer": "https://\u0438\u0434.example",
     "displayName": "Zo\u00eb \U0001F600",
     "createdAt": "2024-05-01T12:00:00Z", "expiresAt": "2099-01-01T00:00:00Z",
     "accessToken": "AT-\u2603-\U0001F511-\u00e9\u0301", "scopes": ["openid", "\u00e9mail"]},
    {"key": "odd-escapes", "provider": "oidc", "subject": "quote\" back\\slash /slash\ttab\nnewline\r\u0001\u001f",
     "email": None, "phone": "+1 555 0100", "issuer": "", "createdAt": "2030-01-01T00:00:00+02:00",
     "expiresAt": "2098-06-30T23:59:59.999-05:30", "accessToken": "AT-\"q\"-\\-/-",
     "refreshToken": "RT-escapes", "refreshExpiresAt": "2099-12-31T23:59:59Z"},
    {"key": "odd-nul", "subject": "before\u0000after", "createdAt": "1583-01-01T00:00:00Z",
     "expiresAt": None, "email": None, "phone": None, "displayName": None, "sessionJwt": "JWT-nul",
     "accessToken": None, "idToken": None, "scopes": None, "endpoints": None, "portalClient": None},
    {"key": "odd-missing", "accessToken": "AT-missing"},
    {"key": "odd-long", "backend": "b" * 300, "provider": "p", "subject": "s" * 20000, "email": "e" * 5000,
     "issuer": "https://" + "i" * 3000, "createdAt": "2024-02-29T23:59:59Z",
     "expiresAt": "9999-12-31T23:59:59Z",
     "accessToken": "A" * 200000, "refreshToken": "R" * 50000, "idToken": "I" * 30000,
     "scopes": ["s%d" % n for n in range(500)]},
    {"key": "odd-endpoints", "provider": "github", "subject": "42", "createdAt": "2024-01-02T03:04:05Z",
     "expiresAt": "2099-01-01T00:00:00Z", "accessToken": "AT-endpoints", "refreshToken": "RT-endpoints",
     "autoRefresh": True, "selected": True,
     "endpoints": {"clientID": "cli\u00e9nt", "token": "https://id.example/token?a=1&b=\"2\"",
                   "revocation": None, "user": "https://id.example/user",
                   "clientSecretFile": "/home/u/\u2603",
                   "tokenAuthMethod": "client_secret_post", "revocationAuthMethod": None},
     "portalClient": {"clientID": "portal-1", "isAccountAbstracted": False}},
    {"key": "\u00e9l\u00e8ve.\u2603", "accessToken": "AT-unicode-key", "createdAt": "2000-03-01T00:00:00Z"},
]
plain = [{
    "key": f"s{index:06d}", "backend": "direct", "provider": "google", "subject": f"sub-{index}",
    "email": f"user{index}@example.com", "issuer": "https://accounts.google.com",
    "createdAt": "2026-11-01T00:00:00Z", "expiresAt": "2099-01-01T00:00:00Z",
    "accessToken": f"ya29.bench-access-token-{index:06d}-" + "x" * 100,
    "refreshToken": f"1//bench-refresh-{index:06d}", "scopes": ["openid", "email"]} for index in range(count)]
sessions = odd + plain

lines = []
for number, session in enumerate(sessions):
    # Both of json.dumps's ways with non-ASCII text: \\u escapes, and raw UTF-8.
    lines.append(json.dumps(session, ensure_ascii=number % 2 == 0))
if bad_line is not None:
    lines[bad_line - 1] = '{"key": "broken", "accessToken": "SECRET-OF-THE-BAD-LINE", "expiresAt": }'
with open(lines_file, "w", encoding="utf-8") as handle:
    handle.write("\n".join(lines) + "\n")


def shown(text):
    """A date as `list --json` writes it: UTC, whole seconds (rounded down)."""
    if text is None:
        return None
    seconds = math.floor(datetime.datetime.fromisoformat(text).timestamp())
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    return (epoch + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


expected_list = []
tokens = {}
selected = next(s["key"] for s in sessions if s.get("selected"))
for session in sessions:
    expected_list.append({
        "key": session["key"], "backend": session.get("backend") or "direct",
        "provider": session.get("provider") or "oidc", "subject": session.get("subject") or "",
        "email": session.get("email"), "phone": session.get("phone"), "issuer": session.get("issuer") or "",
        # null here: the line gives no createdAt, so it is the time of the import.
        "createdAt": shown(session.get("createdAt")), "expiresAt": shown(session.get("expiresAt")),
        "refreshable": session.get("refreshToken") is not None, "selected": session["key"] == selected})
    tokens[session["key"]] = session.get("accessToken") or session.get("sessionJwt")
# `list --json` orders by key, bytewise (SQLite's BINARY collation on UTF-8 text).
expected_list.sort(key=lambda entry: entry["key"].encode("utf-8"))
with open(expected_file, "w", encoding="utf-8") as handle:
    json.dump({"list": expected_list, "tokens": tokens, "selected": selected}, handle)
