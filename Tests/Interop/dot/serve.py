"""Starts django-oauth-toolkit for authdeck's interoperability suite.

    serve.py FOLDER    -> prints one JSON line (base URL, issuer, clients, user), then serves on 127.0.0.1
                          until SIGTERM or the end of its standard input. The clients' registered redirect URI
                          names a fixed loopback port.
"""
import json
import os
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


class ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


def main():
    folder = sys.argv[1]
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    os.environ["INTEROP_FOLDER"] = folder
    os.environ["INTEROP_BASE_URL"] = base
    os.environ["DJANGO_SETTINGS_MODULE"] = "interop_settings"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    key_path = os.path.join(folder, "oidc.key")
    database = os.path.join(folder, "dot.sqlite3")
    # A migrated, empty database and a key made once per toolkit version under INTEROP_CACHE (.build): each test
    # then starts from a copy instead of migrating again, which takes seconds on a busy machine.
    import oauth2_provider
    cache = os.environ.get("INTEROP_CACHE")
    template = os.path.join(cache, "dot-" + oauth2_provider.__version__) if cache else None
    if template and os.path.exists(os.path.join(template, "ready")):
        shutil.copy(os.path.join(template, "dot.sqlite3"), database)
        shutil.copy(os.path.join(template, "oidc.key"), key_path)
    elif not os.path.exists(key_path):
        subprocess.run(["openssl", "genrsa", "-out", key_path, "2048"], check=True, capture_output=True)

    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", verbosity=0)
    if template and not os.path.exists(os.path.join(template, "ready")):
        staging = tempfile.mkdtemp(dir=cache)
        shutil.copy(database, os.path.join(staging, "dot.sqlite3"))
        shutil.copy(key_path, os.path.join(staging, "oidc.key"))
        open(os.path.join(staging, "ready"), "w").close()
        try:
            os.rename(staging, template)
        except OSError:
            shutil.rmtree(staging)  # another run made it first
    from django.contrib.auth.models import User
    from oauth2_provider.models import Application

    user = User.objects.create_user("alice", "alice@example.org", "alice-password-1",
                                    first_name="Alice", last_name="Example")
    redirect_port = free_port()
    redirect = "http://127.0.0.1:%d/callback" % redirect_port
    secret = "s3cret with space:+/%"
    # Where RP-Initiated Logout may send the browser back: registered like the redirect URI, with a fixed port.
    logout = "http://127.0.0.1:%d/logout" % free_port()
    common = dict(redirect_uris=redirect, algorithm=Application.RS256_ALGORITHM, skip_authorization=False,
                  post_logout_redirect_uris=logout)
    Application.objects.create(client_id="authdeck-public", name="authdeck public", user=user,
                               client_type=Application.CLIENT_PUBLIC,
                               authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE, **common)
    Application.objects.create(client_id="authdeck-confidential", name="authdeck confidential", user=user,
                               client_type=Application.CLIENT_CONFIDENTIAL, client_secret=secret,
                               authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE, **common)
    Application.objects.create(client_id="authdeck-device", name="authdeck device", user=user,
                               client_type=Application.CLIENT_PUBLIC,
                               authorization_grant_type=Application.GRANT_DEVICE_CODE, **common)
    # A machine client: tokens for itself through the client credentials grant, no user (RFC 6749 4.4).
    Application.objects.create(client_id="authdeck-machine", name="authdeck machine", user=user,
                               client_type=Application.CLIENT_CONFIDENTIAL, client_secret=secret,
                               authorization_grant_type=Application.GRANT_CLIENT_CREDENTIALS, **common)

    from django.core.wsgi import get_wsgi_application
    server = make_server("127.0.0.1", port, get_wsgi_application(), server_class=ThreadingServer,
                         handler_class=QuietHandler)
    signal.signal(signal.SIGTERM, lambda *_: (server.server_close(), os._exit(0)))
    print(json.dumps({
        "baseURL": base, "issuer": base + "/o", "redirectURI": redirect, "redirectPort": redirect_port,
        "machineClient": "authdeck-machine",
        "user": "alice", "password": "alice-password-1", "email": "alice@example.org", "name": "Alice Example",
        "subject": str(user.pk), "publicClient": "authdeck-public", "confidentialClient": "authdeck-confidential",
        "clientSecret": secret, "deviceClient": "authdeck-device", "postLogoutRedirectURI": logout,
    }), flush=True)
    import threading
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The test holds our standard input: when it goes away (even killed), the server goes too.
    sys.stdin.read()
    server.server_close()
    os._exit(0)


if __name__ == "__main__":
    main()
