"""What the HTTP servers of this folder share: a request handler that writes no log line and answers JSON."""
import http.server
import json


class QuietHandler(http.server.BaseHTTPRequestHandler):
    def send_json(self, status, document):
        """Answers `status` with `document` as JSON; bytes are taken as the JSON text itself."""
        body = document if isinstance(document, bytes) else json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def serve_on_loopback(handler):
    """Serves `handler` on a free port of 127.0.0.1 until SIGTERM, after printing the base URL as the first line of
    standard output (what `CLIRunner.startServer` waits for). The test runner may start this with signals blocked;
    SIGTERM must end it."""
    import http.server
    import signal
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print("http://127.0.0.1:%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
