#!/usr/bin/env python3
"""moto's server (github.com/getmoto/moto), the local AWS the aws-credentials tests ask, started on 127.0.0.1 on a
free port: the port goes to PORT_FILE once it listens. moto records every request it serves to RECORDING (one JSON
object a line: method, url, headers, body in base64), so a test can check what reached STS. Run with the moto venv's
python (make setup makes .build/moto-venv); stopped with SIGTERM.

Usage: moto-sts.py RECORDING PORT_FILE"""
import os
import signal
import sys
import threading

# The test stops this server with SIGTERM; a test runner's thread may have had it blocked, and the mask is inherited.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_DFL)

recording, port_file = sys.argv[1], sys.argv[2]
os.environ["MOTO_ENABLE_RECORDING"] = "true"
os.environ["MOTO_RECORDER_FILEPATH"] = recording

from moto.server import ThreadedMotoServer  # noqa: E402 (reads the recorder settings when imported)

server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
server.start()
host, port = server.get_host_and_port()
with open(port_file + ".tmp", "w") as handle:
    handle.write(str(port))
os.rename(port_file + ".tmp", port_file)
threading.Event().wait()
