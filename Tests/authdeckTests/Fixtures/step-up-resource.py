#!/usr/bin/env python3
"""A protected resource for tests, written apart from authdeck: every request is answered 401 with the
WWW-Authenticate value given, as a resource server answers a token whose authentication is not enough (RFC 9470
section 3), and the Authorization header each request carried is appended to AUTHORIZATION_LOG. It listens on
127.0.0.1 on a free port and writes the port to PORT_FILE.

Usage: step-up-resource.py WWW_AUTHENTICATE AUTHORIZATION_LOG PORT_FILE"""
import http.server
import os
import signal
import sys

from fixture_http import QuietHandler

challenge, authorization_log, port_file = sys.argv[1:4]
# The test stops this server with SIGTERM; a test runner's thread may have had it blocked, and the mask is inherited.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_DFL)


class Handler(QuietHandler):
    def do_GET(self):
        with open(authorization_log, "a") as log:
            log.write((self.headers.get("Authorization") or "") + "\n")
        body = b'{"error":"insufficient_user_authentication"}'
        self.send_response(401)
        self.send_header("WWW-Authenticate", challenge)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))
# The rename makes the port file appear whole.
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
