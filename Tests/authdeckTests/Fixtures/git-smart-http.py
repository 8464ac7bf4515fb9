#!/usr/bin/env python3
"""git's smart HTTP protocol on 127.0.0.1 for the git-credential test: every request must carry Basic credentials
equal to the contents of CREDENTIALS_FILE ("user:password"), else 401 with a Basic challenge; accepted requests are
run through `git http-backend` as CGI. Each request's verdict is appended to LOG_FILE ("ok", "missing", "wrong").

usage: git-smart-http.py PROJECT_ROOT CREDENTIALS_FILE LOG_FILE PORT_FILE
"""
import base64
import http.server
import os
import signal
import subprocess
import sys
import urllib.parse

root, credentials_file, log_file, port_file = sys.argv[1:5]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def verdict(self):
        with open(credentials_file) as source:
            expected = source.read().strip()
        header = self.headers.get("Authorization") or ""
        if not header.startswith("Basic "):
            return "missing"
        try:
            given = base64.b64decode(header[6:]).decode()
        except Exception:
            return "wrong"
        return "ok" if given == expected else "wrong"

    def handle_any(self):
        verdict = self.verdict()
        with open(log_file, "a") as log:
            log.write(verdict + "\n")
        if verdict != "ok":
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="authdeck-test"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        url = urllib.parse.urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": root,
            "GIT_HTTP_EXPORT_ALL": "1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": urllib.parse.unquote(url.path),
            "QUERY_STRING": url.query,
            "CONTENT_TYPE": self.headers.get("Content-Type") or "",
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_USER": "tester",
            "REMOTE_ADDR": "127.0.0.1",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.0",
        }
        if self.headers.get("Git-Protocol"):
            environment["HTTP_GIT_PROTOCOL"] = self.headers.get("Git-Protocol")
        result = subprocess.run(["git", "http-backend"], input=body, env=environment, capture_output=True)
        head, _, payload = result.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.split(b"\r\n"):
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "status":
                status = int(value.strip().split(" ")[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = handle_any
    do_POST = handle_any

    def log_message(self, *args):
        pass


# The test stops this server with SIGTERM; a test runner's thread may have had it blocked, and the mask is inherited.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_DFL)

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
