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
