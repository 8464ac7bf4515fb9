#!/usr/bin/env python3
"""An OpenID Connect issuer in a few lines of Python's `cryptography`, for the tests of Turnkey's completeOAuth:
nothing of authdeck's is used, so its tokens and nonces are what authdeck's are compared with.

  oidc-token-mint.py keys FOLDER              a P-256 signing key (FOLDER/issuer.pem, owner-only) and its JWKS
                                              (FOLDER/jwks.json, kid "py-1")
  oidc-token-mint.py mint FOLDER ISSUER AUD SUB PUBLIC_KEY_HEX [EMAIL]
                                              an ES256 ID token (RFC 7515, RFC 7518 3.4) whose nonce is the hex
                                              SHA-256 of PUBLIC_KEY_HEX's text, as Turnkey's SDK computes it;
                                              printed on stdout, living ten minutes
  oidc-token-mint.py nonce PUBLIC_KEY_HEX     that nonce alone
  oidc-token-mint.py public-key               a fresh compressed P-256 public key, in hex
"""
import base64
import hashlib
import json
import os
import sys
import time

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def nonce(public_key_hex):
    return hashlib.sha256(public_key_hex.encode()).hexdigest()


def keys(folder):
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    path = os.path.join(folder, "issuer.pem")
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(pem)
    numbers = key.public_key().public_numbers()
    jwk = {
        "kty": "EC", "crv": "P-256", "kid": "py-1", "alg": "ES256", "use": "sig",
        "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big")),
    }
    with open(os.path.join(folder, "jwks.json"), "w") as handle:
        json.dump({"keys": [jwk]}, handle)


def mint(folder, issuer, audience, subject, public_key_hex, email=None):
    with open(os.path.join(folder, "issuer.pem"), "rb") as handle:
        key = serialization.load_pem_private_key(handle.read(), password=None)
    now = int(time.time())
    claims = {
        "iss": issuer, "aud": audience, "sub": subject, "iat": now, "exp": now + 600,
        "nonce": nonce(public_key_hex),
    }
    if email:
        claims["email"] = email
    header = {"alg": "ES256", "typ": "JWT", "kid": "py-1"}
    signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
    r, s = decode_dss_signature(key.sign(signing_input.encode(), ec.ECDSA(hashes.SHA256())))
    print(signing_input + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big")))


def public_key():
    key = ec.generate_private_key(ec.SECP256R1()).public_key()
    print(key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint).hex())


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "keys":
        keys(sys.argv[2])
    elif command == "mint":
        mint(*sys.argv[2:])
    elif command == "nonce":
        print(nonce(sys.argv[2]))
    elif command == "public-key":
        public_key()
