#!/usr/bin/env python3
"""Checks an X-Stamp header value the way Turnkey's API reads one (tkhq/sdk api-key-stamper's format), with the
`cryptography` package as the verifier: base64url without padding of the JSON text
{"publicKey":<compressed P-256 key, hex>,"scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":<DER, hex>}
(JSON.stringify's order and spacing), the public key belonging to PUBLIC_HEX, the signature valid over the body.

usage: stamp-verify.py PUBLIC_HEX BODY_FILE STAMP      prints "ok" or the first problem, exits 0 or 1
"""
import base64
import json
import re
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

public_hex, body_file, stamp = sys.argv[1:4]


def fail(reason):
    print(reason)
    sys.exit(1)


if not re.fullmatch(r"[A-Za-z0-9_-]+", stamp):
    fail("not unpadded base64url")
text = base64.urlsafe_b64decode(stamp + "=" * (-len(stamp) % 4)).decode()
fields = json.loads(text)
if list(fields) != ["publicKey", "scheme", "signature"]:
    fail("fields: %r" % list(fields))
if text != json.dumps(fields, separators=(",", ":")):
    fail("not JSON.stringify's text: " + text)
if fields["scheme"] != "SIGNATURE_SCHEME_TK_API_P256":
    fail("scheme " + fields["scheme"])
if fields["publicKey"] != public_hex:
    fail("publicKey " + fields["publicKey"])
if not re.fullmatch(r"[0-9a-f]+", fields["signature"]):
    fail("signature is not lowercase hex")
key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), bytes.fromhex(fields["publicKey"]))
with open(body_file, "rb") as source:
    body = source.read()
try:
    key.verify(bytes.fromhex(fields["signature"]), body, ec.ECDSA(hashes.SHA256()))
except InvalidSignature:
    fail("signature does not verify")
print("ok")
