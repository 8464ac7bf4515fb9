#!/usr/bin/env python3
"""A tiny HTTPS server on 127.0.0.1 for the kubectl test: answers every GET with a small JSON body and appends the
Authorization header it received (or "-") to a log, one line per request.

usage: recording-https.py CERT KEY LOG_FILE PORT_FILE   (the chosen port is written to PORT_FILE when ready;
       CERT and KEY "-" serve plain HTTP)
"""
import http.server
import os
import signal
import ssl
import sys

from fixture_http import QuietHandler

cert, key, log_file, port_file = sys.argv[1:5]


class Handler(QuietHandler):
    def do_GET(self):
        with open(log_file, "a") as log:
            log.write(self.path + " " + (self.headers.get("Authorization") or "-") + "\n")
        self.send_json(200, b'{"kind":"Status","status":"Success","message":"recorded"}')


# The test stops this server with SIGTERM; a test runner's thread may have had it blocked, and the mask is inherited.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_DFL)

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
if cert != "-":
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
