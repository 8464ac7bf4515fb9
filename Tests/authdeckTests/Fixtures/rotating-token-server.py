#!/usr/bin/env python3
"""An OAuth 2.0 token endpoint for tests, written apart from authdeck and its sandbox: it answers refresh_token
grants (RFC 6749 section 6) with a new access token and a rotated refresh token, and treats a refresh token that
comes back after it was rotated as reuse (OAuth 2.0 Security BCP 4.14.2): it refuses it with invalid_grant and
counts it. GET /stats answers {"refreshes": N, "reused": N}. It listens on 127.0.0.1 on a free port, prints the
port on its first line, and stops when its standard input closes.

Usage: rotating-token-server.py FIRST_REFRESH_TOKEN"""
import http.server
import sys
import threading
import urllib.parse

from fixture_http import QuietHandler

lock = threading.Lock()
state = {"current": sys.argv[1], "used": set(), "refreshes": 0, "reused": 0}


class Handler(QuietHandler):
    def do_GET(self):
        if self.path == "/stats":
            with lock:
                self.send_json(200, {"refreshes": state["refreshes"], "reused": state["reused"]})
        else:
            self.send_json(404, {"error": "not_found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        if self.path != "/token" or form.get("grant_type") != ["refresh_token"]:
            self.send_json(400, {"error": "unsupported_grant_type"})
            return
        token = (form.get("refresh_token") or [""])[0]
        with lock:
            if token in state["used"]:
                state["reused"] += 1
                self.send_json(400, {"error": "invalid_grant", "error_description": "refresh token reused"})
                return
            if token != state["current"]:
                self.send_json(400, {"error": "invalid_grant", "error_description": "unknown refresh token"})
                return
            state["refreshes"] += 1
            number = state["refreshes"]
            state["used"].add(token)
            state["current"] = "RT-%d" % number
        self.send_json(200, {"access_token": "AT-%d" % number, "token_type": "Bearer", "expires_in": 3600,
                          "refresh_token": "RT-%d" % number})


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
threading.Thread(target=server.serve_forever, daemon=True).start()
sys.stdin.read()
server.shutdown()
