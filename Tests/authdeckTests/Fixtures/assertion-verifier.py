#!/usr/bin/env python3
"""A token and device endpoint that checks the client assertion of every POST it gets (RFC 7523 2.2 and 3,
OpenID Connect Core 9) with the `cryptography` package as the verifier, and answers invalid_client so the
sign-in ends there.

usage: assertion-verifier.py PUBLIC_PEM CLIENT_ID KID AUDIENCE LOG PORT_FILE
    AUDIENCE is "endpoint" (aud must be this server's URL of the path the POST went to) or "issuer" (aud must be
    http://127.0.0.1:PORT/issuer). Each POST appends one JSON line to LOG: the path, the header's alg and kid, and
    "problems", the checks that failed (empty when the assertion is good).
"""
import base64
import json
import os
import signal
import sys
import time
import urllib.parse
from http.server import HTTPServer

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from fixture_http import QuietHandler

# The test stops this server with SIGTERM; a test runner's thread may have had it blocked, and the mask is inherited.
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
signal.signal(signal.SIGTERM, signal.SIG_DFL)

public_pem, client_id, kid, audience_mode, log_path, port_file = sys.argv[1:7]
public_key = serialization.load_pem_public_key(open(public_pem, "rb").read())
seen = set()


def unbase64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def problems_of(form, url, issuer):
    problems = []
    if form.get("client_assertion_type") != ["urn:ietf:params:oauth:client-assertion-type:jwt-bearer"]:
        problems.append("client_assertion_type")
    assertion = (form.get("client_assertion") or [""])[0]
    parts = assertion.split(".")
    if len(parts) != 3:
        return problems + ["not a compact JWS"], {}
    header, claims = json.loads(unbase64(parts[0])), json.loads(unbase64(parts[1]))
    signed, signature = (parts[0] + "." + parts[1]).encode(), unbase64(parts[2])
    alg = header.get("alg")
    try:
        if alg == "RS256" and isinstance(public_key, rsa.RSAPublicKey):
            public_key.verify(signature, signed, padding.PKCS1v15(), hashes.SHA256())
        elif alg == "PS256" and isinstance(public_key, rsa.RSAPublicKey):
            # RFC 7518 3.5: MGF1 with SHA-256, a salt as long as the hash.
            public_key.verify(signature, signed, padding.PSS(padding.MGF1(hashes.SHA256()), 32), hashes.SHA256())
        elif alg == "ES256" and isinstance(public_key, ec.EllipticCurvePublicKey) and len(signature) == 64:
            der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
            public_key.verify(der, signed, ec.ECDSA(hashes.SHA256()))
        else:
            problems.append("alg %s does not fit the key" % alg)
    except InvalidSignature:
        problems.append("signature")
    if kid != "-" and header.get("kid") != kid:
        problems.append("kid")
    if claims.get("iss") != client_id or claims.get("sub") != client_id:
        problems.append("iss/sub")
    if form.get("client_id", [client_id]) != [client_id]:
        problems.append("client_id")
    expected_audience = issuer if audience_mode == "issuer" else url
    if claims.get("aud") not in (expected_audience, [expected_audience]):
        problems.append("aud %r, not %r" % (claims.get("aud"), expected_audience))
    now = time.time()
    exp, iat = claims.get("exp"), claims.get("iat")
    if not isinstance(exp, int) or exp <= now or exp > now + 300 + 5:
        problems.append("exp")
    if not isinstance(iat, int) or iat > now + 5 or (isinstance(exp, int) and exp - iat > 300):
        problems.append("iat")
    jti = claims.get("jti")
    if not isinstance(jti, str) or len(jti) < 16 or jti in seen:
        problems.append("jti")
    seen.add(jti)
    return problems, header


class Handler(QuietHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        form = urllib.parse.parse_qs(self.rfile.read(length).decode(), keep_blank_values=True)
        base = "http://127.0.0.1:%d" % self.server.server_address[1]
        problems, header = problems_of(form, base + self.path, base + "/issuer")
        with open(log_path, "a") as log:
            log.write(json.dumps({"path": self.path, "alg": header.get("alg"), "kid": header.get("kid"),
                                  "problems": problems}) + "\n")
        self.send_json(401, {"error": "invalid_client", "error_description": "checked by the verifier"})


server = HTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as out:
    out.write(str(server.server_address[1]))

os.rename(port_file + ".tmp", port_file)
server.serve_forever()
