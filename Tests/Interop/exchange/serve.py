#!/usr/bin/env python3
"""A token endpoint that speaks OAuth 2.0 Token Exchange (RFC 8693), written from the RFC for authdeck's interop
suite, beside idpyoidc's, for what that one cannot show (the request's fields as received, `resource`, renewal by
a second client-credentials request). It checks
every field of the request itself and signs what it issues with Python's `cryptography` (RS256, RFC 7518 3.3), never
with authdeck's code.

    serve.py FOLDER    -> prints one JSON line (base URL, issuer, client, secret), then serves on 127.0.0.1 until
                          SIGTERM or the end of its standard input.

The exchanges are logged to FOLDER/exchanges.jsonl. Routes: OpenID discovery (`/.well-known/openid-configuration`), the JWKS, `/token` (client_credentials, for the
parent session, and urn:ietf:params:oauth:grant-type:token-exchange), and `/introspect` (RFC 7662). Clients
authenticate with HTTP Basic (RFC 6749 2.3.1: each half form-decoded). Every token exchange request is written as a
JSON line to FOLDER/exchanges.jsonl: its fields as received, and what the server found of its subject token (no token
itself: only the `jti`s)."""
import base64
import json
import os
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import machine_server  # noqa: E402 (Tests/Interop)

CLIENT_ID = "authdeck-exchanger"
CLIENT_SECRET = "exchange-secret-1"
EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token"
KNOWN_TYPES = {ACCESS_TOKEN_TYPE, "urn:ietf:params:oauth:token-type:jwt",
               "urn:ietf:params:oauth:token-type:refresh_token", "urn:ietf:params:oauth:token-type:id_token"}
LIFETIME = int(os.environ.get("EXCHANGE_TOKEN_LIFETIME", "3600"))


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Issuer:
    def __init__(self, base):
        self.base = base
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "exchange-1"
        self.issued = {}  # jti -> claims, for the tokens this server signed
        self.lock = threading.Lock()

    def jwks(self):
        numbers = self.key.public_key().public_numbers()
        return {"keys": [{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": self.kid,
                          "n": b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
                          "e": b64(numbers.e.to_bytes(3, "big"))}]}

    def sign(self, claims):
        header = {"alg": "RS256", "typ": "at+jwt", "kid": self.kid}
        signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
        signature = self.key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        with self.lock:
            self.issued[claims["jti"]] = claims
        return signing_input + "." + b64(signature)

    def verify(self, token):
        """The claims of a token this server signed and that has not expired, else None."""
        try:
            head, body, signature = token.split(".")
            self.key.public_key().verify(unb64(signature), (head + "." + body).encode(), padding.PKCS1v15(),
                                         hashes.SHA256())
            claims = json.loads(unb64(body))
        except Exception:
            return None
        with self.lock:
            known = claims.get("jti") in self.issued
        return claims if known and claims.get("exp", 0) > time.time() else None

    def access_token(self, subject, client, scope, **extra):
        now = int(time.time())
        claims = {"iss": self.base, "sub": subject, "client_id": client, "iat": now, "exp": now + LIFETIME,
                  "jti": str(uuid.uuid4()), "scope": scope, **extra}
        return self.sign(claims)


def handler(issuer, folder):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def client(self):
            """The client HTTP Basic authenticates, or None (RFC 6749 2.3.1)."""
            header = self.headers.get("Authorization", "")
            if not header.startswith("Basic "):
                return None
            try:
                pair = base64.b64decode(header[6:]).decode()
            except Exception:
                return None
            name, _, secret = pair.partition(":")
            name, secret = urllib.parse.unquote_plus(name), urllib.parse.unquote_plus(secret)
            return name if (name, secret) == (CLIENT_ID, CLIENT_SECRET) else None

        def do_GET(self):
            if self.path == "/.well-known/openid-configuration":
                self.answer(200, {
                    "issuer": issuer.base, "authorization_endpoint": issuer.base + "/authorize",
                    "token_endpoint": issuer.base + "/token", "jwks_uri": issuer.base + "/jwks",
                    "introspection_endpoint": issuer.base + "/introspect",
                    "grant_types_supported": ["client_credentials", EXCHANGE],
                    "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                    "response_types_supported": ["code"], "subject_types_supported": ["public"],
                    "id_token_signing_alg_values_supported": ["RS256"]})
            elif self.path == "/jwks":
                self.answer(200, issuer.jwks())
            else:
                self.answer(404, {"error": "not_found"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            form = urllib.parse.parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
            if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
                return self.answer(400, {"error": "invalid_request", "error_description": "not a form"})
            if any(len(values) > 1 for values in form.values()) and self.path == "/token":
                # RFC 6749 3.2: parameters must not repeat (resource and audience may, RFC 8693 2.1, but authdeck
                # sends one of each, so a repeat here is a mistake).
                return self.answer(400, {"error": "invalid_request", "error_description": "a repeated parameter"})
            fields = {name: values[0] for name, values in form.items()}
            client = self.client()
            if client is None:
                return self.answer(401, {"error": "invalid_client"})
            if self.path == "/introspect":
                claims = issuer.verify(fields.get("token", ""))
                if claims is None:
                    return self.answer(200, {"active": False})
                return self.answer(200, dict(claims, active=True, token_type="Bearer"))
            if self.path != "/token":
                return self.answer(404, {"error": "not_found"})
            grant = fields.get("grant_type")
            if grant == "client_credentials":
                token = issuer.access_token(client, client, fields.get("scope", ""))
                return self.answer(200, {"access_token": token, "token_type": "Bearer", "expires_in": LIFETIME})
            if grant != EXCHANGE:
                return self.answer(400, {"error": "unsupported_grant_type"})
            return self.exchange(client, fields)

        def exchange(self, client, fields):
            """RFC 8693 2.1 and 2.2: subject_token and subject_token_type required, the subject token one this
            server issued and still valid, a requested type it knows; the answer carries issued_token_type."""
            record = {name: value for name, value in fields.items() if name not in ("subject_token", "actor_token")}
            subject = fields.get("subject_token")
            claims = issuer.verify(subject) if subject else None
            record["subject_jti"] = claims.get("jti") if claims else None
            with open(os.path.join(folder, "exchanges.jsonl"), "a") as log:
                log.write(json.dumps(record) + "\n")
            if not subject or "subject_token_type" not in fields:
                return self.answer(400, {"error": "invalid_request",
                                         "error_description": "subject_token and subject_token_type are required"})
            if fields["subject_token_type"] not in KNOWN_TYPES:
                return self.answer(400, {"error": "invalid_request", "error_description": "unknown subject_token_type"})
            requested = fields.get("requested_token_type", ACCESS_TOKEN_TYPE)
            if requested not in (ACCESS_TOKEN_TYPE, "urn:ietf:params:oauth:token-type:jwt"):
                return self.answer(400, {"error": "invalid_request",
                                         "error_description": "cannot issue " + requested})
            if claims is None:
                return self.answer(400, {"error": "invalid_grant", "error_description": "unknown subject_token"})
            extra = {"act": {"sub": client}, "parent_jti": claims["jti"]}
            if "audience" in fields:
                extra["aud"] = fields["audience"]
            if "resource" in fields:
                extra["resource"] = fields["resource"]
            token = issuer.access_token(claims["sub"], client, fields.get("scope", claims.get("scope", "")), **extra)
            return self.answer(200, {"access_token": token, "issued_token_type": requested, "token_type": "Bearer",
                                     "expires_in": LIFETIME})

    return Handler


def main():
    folder = sys.argv[1]
    machine_server.serve(lambda base: handler(Issuer(base), folder), CLIENT_ID, CLIENT_SECRET)


if __name__ == "__main__":
    main()
