#!/usr/bin/env python3
"""A small OpenID provider on 127.0.0.1 whose ID tokens say how the user authenticated, for authdeck's `acr` and
`max_age` checks: glewlwyd issues no `acr`, and never an `auth_time` older than the `max_age` it was asked for.
Its ID tokens are RS256 JWTs signed here with Python's `cryptography`, never by authdeck.

Each issuer is `BASE/SCENARIO`, where SCENARIO says what the ID token carries:
  gold       acr "urn:authdeck:gold", auth_time now
  bronze     acr "urn:authdeck:bronze", auth_time now
  noacr      no acr, auth_time now
  old        acr "urn:authdeck:gold", auth_time an hour ago
  noauthtime acr "urn:authdeck:gold", no auth_time
The authorization endpoint approves at once: it redirects back with a code, the state and `iss`. The token endpoint
takes the code with its PKCE verifier (RFC 7636 4.6, checked here) and answers with an access token, a refresh token
and the ID token (the authorize request's nonce in it); a refresh token it issued gets a new access token. Every request is appended to $ACR_PROVIDER_LOG as one JSON line: its path,
its Origin header, and the authorize query or the token form.
Prints the base URL on its first line, then serves until killed.
"""
import base64
import hashlib
import json
import os
import secrets
import sys
import time
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "authdeckTests", "Fixtures"))
from fixture_http import QuietHandler, serve_on_loopback  # noqa: E402

from cryptography.hazmat.primitives import hashes  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import padding, rsa  # noqa: E402

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KID = "acr-provider-1"
SCENARIOS = {
    "gold": {"acr": "urn:authdeck:gold", "age": 0},
    "bronze": {"acr": "urn:authdeck:bronze", "age": 0},
    "noacr": {"age": 0},
    "old": {"acr": "urn:authdeck:gold", "age": 3600},
    "noauthtime": {"acr": "urn:authdeck:gold"},
}
CODES = {}
REFRESH_TOKENS = set()
LOG = os.environ.get("ACR_PROVIDER_LOG")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwk():
    numbers = KEY.public_key().public_numbers()
    return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": KID,
            "n": b64(numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")),
            "e": b64(numbers.e.to_bytes(3, "big"))}


def signed(claims):
    head = b64(json.dumps({"alg": "RS256", "typ": "JWT", "kid": KID}).encode())
    body = b64(json.dumps(claims).encode())
    signature = KEY.sign((head + "." + body).encode(), padding.PKCS1v15(), hashes.SHA256())
    return head + "." + body + "." + b64(signature)


class Handler(QuietHandler):
    def issuer(self, scenario):
        return "http://127.0.0.1:%d/%s" % (self.server.server_address[1], scenario)

    def scenario(self, path):
        parts = path.split("/")
        return (parts[1], "/" + "/".join(parts[2:])) if len(parts) > 2 and parts[1] in SCENARIOS else (None, path)

    def record(self, fields):
        if LOG:
            with open(LOG, "a") as log:
                log.write(json.dumps(dict(fields, path=self.path.split("?")[0],
                                          origin=self.headers.get("Origin"))) + "\n")

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        self.record({"query": dict(urllib.parse.parse_qsl(url.query))})
        scenario, rest = self.scenario(url.path)
        if scenario is None:
            return self.send_json(404, {"error": "not_found"})
        issuer = self.issuer(scenario)
        if rest == "/.well-known/openid-configuration":
            return self.send_json(200, {
                "issuer": issuer, "authorization_endpoint": issuer + "/authorize",
                "token_endpoint": issuer + "/token", "jwks_uri": issuer + "/jwks",
                "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["RS256"], "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"], "claims_parameter_supported": True,
                "acr_values_supported": ["urn:authdeck:gold", "urn:authdeck:bronze"],
            })
        if rest == "/jwks":
            return self.send_json(200, {"keys": [jwk()]})
        if rest == "/authorize":
            query = dict(urllib.parse.parse_qsl(url.query))
            code = secrets.token_urlsafe(24)
            CODES[code] = dict(query, scenario=scenario)
            answer = {"code": code, "state": query.get("state", ""), "iss": issuer}
            self.send_response(302)
            self.send_header("Location", query["redirect_uri"] + "?" + urllib.parse.urlencode(answer))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_json(404, {"error": "not_found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
        self.record({"form": form})
        if form.get("grant_type") == "refresh_token":
            # RFC 6749 6: a new access token for a refresh token this provider issued; no ID token.
            if form.get("refresh_token") not in REFRESH_TOKENS:
                return self.send_json(400, {"error": "invalid_grant"})
            return self.send_json(200, {"access_token": secrets.token_urlsafe(24), "token_type": "Bearer",
                                        "expires_in": 600})
        request = CODES.pop(form.get("code", ""), None)
        if request is None or form.get("grant_type") != "authorization_code":
            return self.send_json(400, {"error": "invalid_grant"})
        challenge = b64(hashlib.sha256(form.get("code_verifier", "").encode()).digest())
        if challenge != request.get("code_challenge") or form.get("redirect_uri") != request.get("redirect_uri"):
            return self.send_json(400, {"error": "invalid_grant"})
        scenario = SCENARIOS[request["scenario"]]
        now = int(time.time())
        claims = {"iss": self.issuer(request["scenario"]), "sub": "acr-user", "aud": request["client_id"],
                  "iat": now, "exp": now + 600, "email": "acr-user@example.org", "name": "ACR User"}
        if "nonce" in request:
            claims["nonce"] = request["nonce"]
        if "acr" in scenario:
            claims["acr"] = scenario["acr"]
        if "age" in scenario:
            claims["auth_time"] = now - scenario["age"]
        refresh_token = secrets.token_urlsafe(24)
        REFRESH_TOKENS.add(refresh_token)
        self.send_json(200, {"access_token": secrets.token_urlsafe(24), "token_type": "Bearer", "expires_in": 600,
                             "refresh_token": refresh_token, "id_token": signed(claims)})


serve_on_loopback(Handler)
