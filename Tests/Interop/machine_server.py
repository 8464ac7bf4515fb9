"""What the interop suite's token servers without users share (Tests/Interop/exchange and Tests/Interop/idpyoidc):
a free port on 127.0.0.1, their HTTP server on it in a thread, the one JSON line InteropServer reads, and the end
when the test lets go of standard input (or sends SIGTERM)."""
import json
import os
import signal
import socket
import sys
import threading
from http.server import ThreadingHTTPServer


def serve(make_handler, client_id, client_secret):
    """Starts `make_handler(base)`'s handler class on a free loopback port, prints the fields InteropServer.Info
    names (this kind of server has no users, browser or redirect) and serves until standard input ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = "http://127.0.0.1:%d" % port
    http = ThreadingHTTPServer(("127.0.0.1", port), make_handler(base))
    http.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=http.serve_forever, daemon=True).start()
    print(json.dumps({"baseURL": base, "issuer": base, "redirectURI": base + "/unused", "redirectPort": 0,
                      "user": "", "email": "", "name": "", "subject": None, "publicClient": client_id,
                      "confidentialClient": client_id, "clientSecret": client_secret, "deviceClient": client_id,
                      "machineClient": client_id}), flush=True)
    # The test holds our standard input: when it goes away (even killed), the server goes too.
    sys.stdin.read()
    os._exit(0)
