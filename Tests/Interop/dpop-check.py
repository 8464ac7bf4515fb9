#!/usr/bin/env python3
"""Checks a DPoP proof (RFC 9449 section 4) for a resource request the way a resource server would, with Python's
`cryptography` and nothing of authdeck's: standard input holds the access token, then the proof; the arguments are
the request's method and URL. Every expected value is computed here from the RFCs' text: the header's typ and alg,
the jwk's RFC 7638 thumbprint against the access token's `cnf.jkt` (RFC 9449 6.1), htm, htu (the URL without query
and fragment), ath (base64url SHA-256 of the token), iat within a minute of now, a jti, and the ES256 signature
over the first two parts. Prints "ok", or one line per failed check and exits 1."""
import base64
import hashlib
import json
import sys
import time
import urllib.parse

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def b64encode(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    method, url = sys.argv[1], sys.argv[2]
    token, proof = [line.strip() for line in sys.stdin.read().strip().split("\n")[:2]]
    failures = []
    parts = proof.split(".")
    if len(parts) != 3:
        print("the proof is not a compact JWS")
        return 1
    header = json.loads(b64decode(parts[0]))
    claims = json.loads(b64decode(parts[1]))
    if header.get("typ") != "dpop+jwt":
        failures.append("typ is %r" % header.get("typ"))
    if header.get("alg") != "ES256":
        failures.append("alg is %r" % header.get("alg"))
    jwk = header.get("jwk") or {}
    if jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
        failures.append("jwk is not a P-256 key: %r" % jwk)
    if "d" in jwk:
        failures.append("the jwk carries the private key")
    # RFC 7638 3.2: the required members, sorted, no whitespace.
    members = {name: jwk.get(name) for name in ("crv", "kty", "x", "y")}
    thumbprint = b64encode(hashlib.sha256(json.dumps(members, separators=(",", ":"), sort_keys=True).encode()).digest())
    token_claims = json.loads(b64decode(token.split(".")[1]))
    if (token_claims.get("cnf") or {}).get("jkt") != thumbprint:
        failures.append("the jwk's thumbprint %s is not the token's cnf.jkt %r" % (thumbprint, token_claims.get("cnf")))
    if claims.get("htm") != method:
        failures.append("htm is %r" % claims.get("htm"))
    target = urllib.parse.urlsplit(url)
    htu = urllib.parse.urlunsplit((target.scheme, target.netloc, target.path, "", ""))
    if claims.get("htu") != htu:
        failures.append("htu is %r, not %r" % (claims.get("htu"), htu))
    ath = b64encode(hashlib.sha256(token.encode()).digest())
    if claims.get("ath") != ath:
        failures.append("ath is %r, not %r" % (claims.get("ath"), ath))
    if not isinstance(claims.get("iat"), int) or abs(claims["iat"] - time.time()) > 60:
        failures.append("iat is %r, not now" % claims.get("iat"))
    if not claims.get("jti"):
        failures.append("no jti")
    try:
        numbers = ec.EllipticCurvePublicNumbers(
            int.from_bytes(b64decode(jwk["x"]), "big"), int.from_bytes(b64decode(jwk["y"]), "big"), ec.SECP256R1())
        signature = b64decode(parts[2])
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        numbers.public_key().verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, KeyError, ValueError) as error:
        failures.append("the signature does not verify with the jwk (%r)" % (error,))
    print("\n".join(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
