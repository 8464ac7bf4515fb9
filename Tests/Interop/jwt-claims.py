#!/usr/bin/env python3
"""Decodes the JWTs on standard input (one a line) with Python alone, as a resource server would, and checks each
RS256 signature with `cryptography` against the JWKS the issuer's discovery names (the argument: the issuer): prints one JSON array with
each token's header, claims and whether the signature holds. Nothing of authdeck's is used, so the values printed
are what a test compares `authdeck inspect` with; the tokens themselves are never printed."""
import base64
import json
import sys
import urllib.request

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def rsa_key(jwk):
    """An RSA public key from a JWK's modulus and exponent (RFC 7518 6.3.1)."""
    number = lambda member: int.from_bytes(b64decode(jwk[member]), "big")
    return rsa.RSAPublicNumbers(number("e"), number("n")).public_key()


def signature_holds(token, keys):
    head, body, signature = token.split(".")
    header = json.loads(b64decode(head))
    if header.get("alg") != "RS256":
        return False
    for jwk in keys:
        if jwk.get("kty") != "RSA" or ("kid" in header and jwk.get("kid") != header["kid"]):
            continue
        try:
            rsa_key(jwk).verify(b64decode(signature), (head + "." + body).encode(), padding.PKCS1v15(),
                                hashes.SHA256())
            return True
        except InvalidSignature:
            continue
    return False


def main():
    with urllib.request.urlopen(sys.argv[1].rstrip("/") + "/.well-known/openid-configuration", timeout=10) as answer:
        jwks_uri = json.loads(answer.read())["jwks_uri"]
    with urllib.request.urlopen(jwks_uri, timeout=10) as answer:
        keys = json.loads(answer.read())["keys"]
    decoded = []
    for token in [line.strip() for line in sys.stdin.read().split("\n") if line.strip()]:
        head, body, _ = token.split(".")
        decoded.append({"header": json.loads(b64decode(head)), "claims": json.loads(b64decode(body)),
                        "signatureHolds": signature_holds(token, keys)})
    print(json.dumps(decoded))


if __name__ == "__main__":
    main()
