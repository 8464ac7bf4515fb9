"""A WebAuthn relying party nobody on this project wrote: Yubico's python-fido2 server (fido2.server.Fido2Server),
driven one ceremony step per run. Debian's python3-fido2 (0.9) is imported, so run it with /usr/bin/python3.

    webauthn_server.py STEP RP_ID [ATTESTATION]  < request JSON  > answer JSON

STEP is register-begin, register-complete, authenticate-begin or authenticate-complete. Binary values travel as
base64url; options come out in WebAuthn's JSON form. A refused response prints {"error": "..."} and exits 1.
"""
import json
import sys
from enum import Enum

from fido2 import cbor
from fido2.client import ClientData
from fido2.ctap2 import AttestationObject, AttestedCredentialData, AuthenticatorData
from fido2.server import Fido2Server
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import PublicKeyCredentialRpEntity


def jsonable(value):
    if isinstance(value, bytes):
        return websafe_encode(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(item) for item in value]
    return value


def main():
    step, rp_id = sys.argv[1], sys.argv[2]
    attestation = sys.argv[3] if len(sys.argv) > 3 else None
    request = json.load(sys.stdin)
    server = Fido2Server(PublicKeyCredentialRpEntity(rp_id, "authdeck test RP"), attestation=attestation)
    if step == "register-begin":
        user = {"id": websafe_decode(request["userId"]), "name": request["userName"]}
        options, state = server.register_begin(user, user_verification="required")
        answer = {"options": jsonable(dict(options)), "state": state}
    elif step == "register-complete":
        response = request["credential"]["response"]
        attestation_object = AttestationObject(websafe_decode(response["attestationObject"]))
        auth_data = server.register_complete(
            request["state"], ClientData(websafe_decode(response["clientDataJSON"])), attestation_object
        )
        if attestation_object.fmt == "packed":
            # Self-attestation checked by python-fido2's own packed verifier (no x5c: signed by the new key).
            from fido2.attestation import PackedAttestation

            PackedAttestation().verify(
                attestation_object.att_statement, auth_data, ClientData(websafe_decode(response["clientDataJSON"])).hash
            )
        credential = auth_data.credential_data
        if websafe_encode(credential.credential_id) != request["credential"]["id"]:
            raise ValueError("the credential id differs from the attested one")
        answer = {
            "credentialData": websafe_encode(credential),
            "fmt": attestation_object.fmt,
            "flags": auth_data.flags,
            "counter": auth_data.counter,
            "aaguid": credential.aaguid.hex(),
            "publicKey": {str(key): jsonable(value) for key, value in credential.public_key.items()},
        }
    elif step == "authenticate-begin":
        credentials = [AttestedCredentialData(websafe_decode(request["credentialData"]))]
        options, state = server.authenticate_begin(credentials, user_verification="required")
        answer = {"options": jsonable(dict(options)), "state": state}
    elif step == "authenticate-complete":
        credentials = [AttestedCredentialData(websafe_decode(request["credentialData"]))]
        response = request["credential"]["response"]
        auth_data = AuthenticatorData(websafe_decode(response["authenticatorData"]))
        server.authenticate_complete(
            request["state"],
            credentials,
            websafe_decode(request["credential"]["rawId"]),
            ClientData(websafe_decode(response["clientDataJSON"])),
            auth_data,
            websafe_decode(response["signature"]),
        )
        answer = {"counter": auth_data.counter, "flags": auth_data.flags}
    elif step == "cbor":
        # fido2's own CBOR encoder, for comparing byte for byte: the request is a list of values where
        # {"bytes": b64url} stands for a byte string and {"map": [[k, v], ...]} for a map with non-string keys.
        def value(item):
            if isinstance(item, dict) and "bytes" in item:
                return websafe_decode(item["bytes"])
            if isinstance(item, dict) and "map" in item:
                return {value(key): value(member) for key, member in item["map"]}
            if isinstance(item, list):
                return [value(member) for member in item]
            return item

        answer = {"encoded": [websafe_encode(cbor.encode(value(item))) for item in request["values"]]}
    else:
        raise SystemExit("unknown step " + step)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except ValueError as refusal:
        json.dump({"error": str(refusal)}, sys.stdout)
        sys.exit(1)
