#!/usr/bin/env python3
"""A hostile OpenID provider for tests, on 127.0.0.1 only. It prints its base URL on the first line of stdout and
serves until killed. Every request path is appended to the file named by $HOSTILE_LOG.

  /hostile/...    discovery, a device authorization whose user code and URIs carry terminal escapes, control
                  characters and bidi overrides (the complete URI is a file: URL), and a token endpoint that denies
                  with an equally hostile error_description.
  /config-host/...  the endpoints a config.json names; a request here means --issuer was not honoured.
  /big/...        a discovery document of 50 MB, streamed without Content-Length.
  /bigcl/...      the same with a Content-Length announcing it.
  /forged/...     discovery with an empty JWKS, and a token endpoint whose refresh answer carries an unsigned
                  (alg none) ID token for another subject, "mallory".
Every request's method, path, headers and body are appended to $HOSTILE_LOG.wire, each followed by a "----" line
(a client secret sent anywhere shows up there).
"""
import base64
import json
import os
import sys
import time

from fixture_http import QuietHandler, serve_on_loopback

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\x9b1m\x00\x08\r\u202e\u2066"
BIG = 50 * 1024 * 1024
LOG = os.environ.get("HOSTILE_LOG")


class Handler(QuietHandler):
    protocol_version = "HTTP/1.1"

    def base(self):
        return "http://127.0.0.1:%d" % self.server.server_address[1]

    def discovery(self, name):
        issuer = self.base() + "/" + name
        return {
            "issuer": issuer,
            "authorization_endpoint": issuer + "/authorize",
            "token_endpoint": issuer + "/token",
            "device_authorization_endpoint": issuer + "/device",
            "jwks_uri": issuer + "/jwks",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
        }

    def stream_big(self, announce):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if announce:
            self.send_header("Content-Length", str(BIG))
        else:
            self.send_header("Connection", "close")
        self.end_headers()
        chunk = b"[" + b" " * 65535
        try:
            for _ in range(BIG // len(chunk)):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def record(self, body=b""):
        if LOG:
            with open(LOG, "a") as handle:
                handle.write(self.command + " " + self.path + "\n")
            with open(LOG + ".wire", "ab") as handle:
                handle.write((self.command + " " + self.path + "\n" + str(self.headers)).encode() + body + b"\n----\n")

    def forged_id_token(self):
        def part(document):
            return base64.urlsafe_b64encode(json.dumps(document).encode()).rstrip(b"=").decode()
        now = int(time.time())
        claims = {"iss": self.base() + "/forged", "sub": "mallory", "aud": "authdeck-test", "iat": now,
                  "exp": now + 3600}
        return part({"alg": "none", "typ": "JWT"}) + "." + part(claims) + "."

    def do_GET(self):
        self.record()
        path = self.path.split("?")[0]
        if path == "/big/.well-known/openid-configuration":
            return self.stream_big(False)
        if path == "/bigcl/.well-known/openid-configuration":
            return self.stream_big(True)
        for name in ("hostile", "config-host", "forged"):
            if path == "/%s/.well-known/openid-configuration" % name:
                return self.send_json(200, self.discovery(name))
            if path == "/%s/jwks" % name:
                return self.send_json(200, {"keys": []})
        self.send_json(404, {"error": "not_found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.record(self.rfile.read(length))
        path = self.path.split("?")[0]
        if path == "/forged/token":
            return self.send_json(200, {
                "access_token": "forged-access", "token_type": "Bearer", "expires_in": 3600,
                "id_token": self.forged_id_token(),
            })
        if path.endswith("/device"):
            return self.send_json(200, {
                "device_code": "device-code",
                "user_code": "WDJB" + ESCAPES + "MJHT",
                "verification_uri": "https://example.com/device" + ESCAPES,
                "verification_uri_complete": "file:///etc/passwd",
                "expires_in": 60,
                "interval": 1,
            })
        if path.endswith("/token"):
            return self.send_json(400, {
                "error": "invalid_grant",
                "error_description": "Denied " + ESCAPES + " by policy\u202d",
            })
        self.send_json(404, {"error": "not_found"})


serve_on_loopback(Handler)
