"""Starts idpyoidc's authorization server (PyPI's idpyoidc, in the venv `make setup` builds under .build) for
authdeck's interoperability suite: its token endpoint with client credentials and RFC 8693 token exchange, its
introspection, its metadata and keys, served over HTTP on 127.0.0.1.

    serve.py FOLDER    -> prints one JSON line (base URL, issuer, client, secret), then serves until SIGTERM or the
                          end of its standard input.

idpyoidc is a library, not a server: this file configures it as its own tests and demo do (demo/oauth2_cc.py,
tests/test_server_36_oauth2_token_exchange.py) and hands each HTTP request to its endpoints
(parse_request, process_request, do_response). One setting idpyoidc has no option for is given in code: the grant
it makes for a client-credentials session gets usage rules that let its access token be exchanged, as the
authorization-code grants of its tests are configured to."""
import json
import os
import sys
from http.server import BaseHTTPRequestHandler

from idpyoidc.server import Server
from idpyoidc.server.authz import AuthzHandling
from idpyoidc.server.client_authn import verify_client
from idpyoidc.server.configure import ASConfiguration

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import machine_server  # noqa: E402 (Tests/Interop)

CLIENT_ID = "authdeck-exchanger"
CLIENT_SECRET = "exchange-secret-1"
KEYDEFS = [{"type": "RSA", "key": "", "use": ["sig"]}, {"type": "EC", "crv": "P-256", "use": ["sig"]}]
CRYPT = {"kwargs": {"keys": {"key_defs": [{"type": "OCT", "use": ["enc"], "kid": "password"},
                                          {"type": "OCT", "use": ["enc"], "kid": "salt"}]}, "iterations": 1}}
ACCESS_TOKEN_RULES = {"access_token": {"supports_minting": ["access_token"], "expires_in": 600}}


def configure(base, folder):
    conf = {
        "issuer": base,
        "httpc_params": {"verify": False},
        "keys": {"uri_path": "jwks", "key_defs": KEYDEFS},
        "endpoint": {
            # authdeck reads OpenID discovery; idpyoidc's RFC 8414 document is served there.
            "server_metadata": {"path": ".well-known/openid-configuration",
                                "class": "idpyoidc.server.oauth2.server_metadata.ServerMetadata", "kwargs": {}},
            "authorization": {"path": "authorize", "class": "idpyoidc.server.oauth2.authorization.Authorization",
                              "kwargs": {}},
            "token": {"path": "token", "class": "idpyoidc.server.oauth2.token.Token",
                      "kwargs": {"client_authn_method": ["client_secret_basic"], "request_format": "urlencoded"}},
            "introspection": {"path": "introspect", "class": "idpyoidc.server.oauth2.introspection.Introspection",
                              "kwargs": {"client_authn_method": ["client_secret_basic"],
                                         "enforce_audience_restriction": False}},
        },
        "token_handler_args": {
            "key_conf": {"key_defs": KEYDEFS},
            "token": {"class": "idpyoidc.server.token.jwt_token.JWTToken",
                      "kwargs": {"lifetime": 600, "aud": ["https://api.example"]}},
        },
        "client_authn": verify_client,
        "claims_interface": {"class": "idpyoidc.server.session.claims.OAuth2ClaimsInterface", "kwargs": {}},
        "authz": {"class": AuthzHandling, "kwargs": {"grant_config": {"usage_rules": ACCESS_TOKEN_RULES}}},
        "session_params": {"encrypter": CRYPT},
    }
    server = Server(ASConfiguration(conf=conf, base_path=folder), cwd=folder)
    server.context.cdb[CLIENT_ID] = {
        "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET, "client_salt": "salted",
        "token_endpoint_auth_method": "client_secret_basic",
        "grant_types_supported": ["client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange"],
        "allowed_scopes": ["api"],
    }
    manager = server.context.session_manager
    add_grant = manager.add_grant

    def add_grant_with_rules(path, token_usage_rules=None, scope=None, **kwargs):
        return add_grant(path, token_usage_rules=token_usage_rules or ACCESS_TOKEN_RULES, scope=scope, **kwargs)

    manager.add_grant = add_grant_with_rules
    server.context.map_supported_to_preferred()
    server.context.set_provider_info()
    return server


def handler(server, base):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, info):
            body = info["response"] if isinstance(info["response"], str) else json.dumps(info["response"])
            self.send_response(info.get("http_code", 200))
            headers = info.get("http_headers") or [("Content-Type", "application/json")]
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body.encode())

        def do_GET(self):
            if self.path == "/jwks":
                data = json.dumps(server.keyjar.export_jwks("")).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(data)
                return
            endpoint = server.get_endpoint("server_metadata")
            self.send(endpoint.do_response(**endpoint.process_request()))

        def do_POST(self):
            name = {"/token": "token", "/introspect": "introspection"}.get(self.path)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            if name is None:
                return self.send({"response": {"error": "not_found"}, "http_code": 404})
            endpoint = server.get_endpoint(name)
            info = {"headers": {"authorization": self.headers.get("Authorization", "")}, "url": base + self.path,
                    "method": "POST"}
            # An error comes back as a message, which goes out as 400 (RFC 6749 5.2), as idpyoidc's example
            # Flask provider does; anything else through the endpoint's own do_response.
            request = endpoint.parse_request(body, http_info=info)
            if "error" in request:
                return self.send({"response": request.to_dict(), "http_code": 400})
            answer = endpoint.process_request(request)
            if "error" in answer:
                return self.send({"response": answer.to_dict(), "http_code": 400})
            self.send(endpoint.do_response(request=request, **answer))

    return Handler


def main():
    folder = sys.argv[1]
    machine_server.serve(lambda base: handler(configure(base, folder), base), CLIENT_ID, CLIENT_SECRET)


if __name__ == "__main__":
    main()
