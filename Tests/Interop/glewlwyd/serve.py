"""Starts glewlwyd (Debian's package) for authdeck's interoperability suite.

    serve.py FOLDER    -> prints one JSON line (base URL, issuer, clients, user), then keeps glewlwyd running on
                          127.0.0.1 until SIGTERM or the end of its standard input, and stops it then.
    serve.py FOLDER --tls
                       -> the same, but glewlwyd speaks HTTPS only (its use_secure_connection), with a server
                          certificate from a private CA made here with openssl, and one OpenID Connect instance that
                          authenticates clients by the certificate they present in the TLS handshake (RFC 8705).

Its own SQLite database in FOLDER, built from the package's schema; configured through its admin API as an operator
would: an OpenID Connect plugin instance, a second one that binds tokens with DPoP and demands a nonce in every proof
(the same clients work with both), two more for pushed, signed requests and JWT responses, a user, a public, a
confidential and a device client, and clients that authenticate with a signed JWT: private_key_jwt with an RSA key
(its JWKS, with a kid) and with a P-256 key (its PEM public key), and client_secret_jwt. Their keys are made here
with openssl; the private halves are written to FOLDER (owner-only) for the test, the public halves given to
glewlwyd.
"""
import base64
import hashlib
import http.cookiejar
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request

SCHEMA = "/usr/share/dbconfig-common/data/glewlwyd/install/sqlite3"
ADMIN_PASSWORD = "password"  # the schema's default admin (glewlwyd's docs): a throwaway database
# The DNS name in the CA-issued client certificate, which glewlwyd's tls_client_auth client is registered with.
MTLS_CLIENT_NAME = "authdeck-mtls.client.test"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class API:
    def __init__(self, base, context=None):
        self.base = base
        handlers = [urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())]
        if context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self.opener = urllib.request.build_opener(*handlers)

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=10) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text.strip().startswith(("{", "[")) else text
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(errors="replace")

    def must(self, method, path, body=None):
        status, answer = self.call(method, path, body)
        if status >= 300:
            raise SystemExit("glewlwyd %s %s answered %s: %s" % (method, path, status, answer))
        return answer


def write_config(folder, port, database, tls=None):
    """The package's own configuration with only what must differ changed: the port, 127.0.0.1 only, the external
    URL, a log file and a database in FOLDER; with `tls` (the PKI's files) HTTPS with its key, certificate and the
    CA it checks client certificates against."""
    scheme = "https" if tls else "http"
    replaced = {
        "port": "%d" % port, "external_url": '"%s://127.0.0.1:%d"' % (scheme, port), "log_mode": '"file"',
        "log_level": '"%s"' % os.environ.get("INTEROP_LOG_LEVEL", "WARNING"),
        "log_file": '"%s"' % os.path.join(folder, "glewlwyd.log"),
        "session_expiration": "3600",
    }
    if tls:
        replaced.update({
            "use_secure_connection": "true", "secure_connection_key_file": '"%s"' % tls["serverKey"],
            "secure_connection_pem_file": '"%s"' % tls["serverCertificate"],
            "secure_connection_ca_file": '"%s"' % tls["trusted"],
        })
    lines = ['bind_address="127.0.0.1"']
    with open("/etc/glewlwyd/glewlwyd.conf") as original:
        for line in original:
            name = line.split("=", 1)[0].strip()
            if name in replaced:
                lines.append("%s=%s" % (name, replaced[name]))
            elif name == "bind_address":
                continue
            elif line.startswith("@include"):
                lines.append('database = { type = "sqlite3"; path = "%s"; };' % database)
            else:
                lines.append(line.rstrip("\n"))
    path = os.path.join(folder, "glewlwyd.conf")
    with open(path, "w") as config:
        config.write("\n".join(lines) + "\n")
    return path


def main():
    folder = sys.argv[1]
    tls = make_pki(folder) if "--tls" in sys.argv[2:] else None
    database = os.path.join(folder, "glewlwyd.db")
    with open(SCHEMA) as schema:
        subprocess.run(["sqlite3", database], stdin=schema, check=True, capture_output=True)
    port = free_port()
    base = "%s://127.0.0.1:%d" % ("https" if tls else "http", port)
    config = write_config(folder, port, database, tls)
    server = subprocess.Popen(["glewlwyd", "--config-file", config], stdout=subprocess.DEVNULL,
                              stderr=open(os.path.join(folder, "glewlwyd.err"), "w"))

    def stop(*_):
        server.terminate()
        try:
            server.wait(5)
        except subprocess.TimeoutExpired:
            server.kill()
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    try:
        if tls:
            configure_tls(folder, base, server, tls)
        else:
            configure(folder, base, server)
    except BaseException:
        server.kill()
        raise
    # The test holds our standard input: when it goes away (even killed), glewlwyd goes too.
    sys.stdin.read()
    stop()


def admin(folder, base, server, context=None):
    """The admin API once glewlwyd answers, signed in as the schema's admin."""
    api = API(base + "/api", context)
    for _ in range(100):
        if server.poll() is not None:
            raise SystemExit("glewlwyd exited: " + open(os.path.join(folder, "glewlwyd.err")).read()[-500:])
        try:
            urllib.request.urlopen(base + "/api/auth/scheme/", timeout=1, context=context)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            time.sleep(0.1)
    api.must("POST", "/auth/", {"username": "admin", "password": ADMIN_PASSWORD})
    return api


def plugin_parameters(folder, issuer):
    """An OpenID Connect instance's settings: code, device and refresh grants, PKCE, revocation, its own RSA key."""
    key = os.path.join(folder, "oidc.key")
    subprocess.run(["openssl", "genrsa", "-out", key, "2048"], check=True, capture_output=True)
    public = subprocess.run(["openssl", "rsa", "-in", key, "-pubout"], check=True, capture_output=True, text=True)
    return {
        "iss": issuer, "jwt-type": "rsa", "jwt-key-size": "256", "key": open(key).read(), "cert": public.stdout,
        "access-token-duration": 3600, "refresh-token-duration": 1209600, "code-duration": 600,
        "refresh-token-rolling": True, "allow-non-oidc": False,
        "auth-type-code-enabled": True, "auth-type-token-enabled": False, "auth-type-id-token-enabled": True,
        "auth-type-none-enabled": False, "auth-type-password-enabled": False, "auth-type-client-enabled": False,
        "auth-type-device-enabled": True, "auth-type-refresh-enabled": True,
        "device-authorization-expiration": 600, "device-authorization-interval": 1,
        "scope": [], "additional-parameters": [], "claims": [],
        "name-claim": "mandatory", "email-claim": "mandatory", "scope-claim": "no",
        "allowed-scope": ["openid"], "pkce-allowed": True, "pkce-method-plain-allowed": False,
        "introspection-revocation-allowed": True, "introspection-revocation-auth-scope": [],
        "introspection-revocation-allow-target-client": True, "jwks-show": True, "secret-type": "public",
        "address-claim": {"type": "no", "mandatory": False},
        "session-management-allowed": False,
        # JWT client authentication (and so client_secret_jwt and private_key_jwt in discovery) comes with JWT
        # request parameters in glewlwyd; the client properties that hold each client's public key or JWKS.
        "request-parameter-allow": True, "client-pubkey-parameter": "pubkey", "client-jwks-parameter": "jwks",
        # RFC 9207: `iss` in every authorization response, which authdeck checks against the issuer.
        "oauth-as-iss-id": True,
    }


def add_user(api):
    api.must("POST", "/user/", {"username": "alice", "name": "Alice Example", "email": "alice@example.org",
                                "password": "alice-password-1", "scope": ["openid", "g_profile"], "enabled": True})


def configure(folder, base, server):
    api = admin(folder, base, server)
    issuer = base + "/api/oidc"
    parameters = plugin_parameters(folder, issuer)
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidc", "display_name": "OpenID Connect",
                                      "enabled": True, "parameters": parameters})
    # DPoP (glewlwyd docs/OIDC.md, its plugin's oauth-dpop-* settings): proofs checked at /token and /userinfo, a
    # nonce required in each one (400 use_dpop_nonce at /token, 401 with WWW-Authenticate at /userinfo), and a
    # fresh nonce after every two proofs, so a client must take the nonce of each answer.
    dpop_parameters = dict(parameters, **{
        "iss": base + "/api/oidcdpop", "oauth-dpop-allowed": True, "oauth-dpop-iat-duration": 60,
        "oauth-dpop-nonce-mandatory": True, "oauth-dpop-nonce-counter": 2,
    })
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidcdpop", "display_name": "OpenID Connect DPoP",
                                      "enabled": True, "parameters": dpop_parameters})
    # Two more instances with the same keys, so the scenarios above stay as they are: one that allows pushed
    # (oauth-par-*), signed (request-parameter-allow, the client's `pubkey` property) requests and JWT responses
    # (oauth-fapi-allow-jarm), and one that takes authorization requests only pushed (oauth-par-required).
    par = {"oauth-par-allowed": True, "oauth-par-required": False, "oauth-par-duration": 90,
           "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:"}
    fapi = dict(parameters, iss=base + "/api/oidcx", **par)
    fapi.update({"request-parameter-allow": True, "client-pubkey-parameter": "pubkey", "oauth-fapi-allow-jarm": True})
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidcx", "display_name": "OpenID Connect FAPI",
                                      "enabled": True, "parameters": fapi})
    required = dict(parameters, iss=base + "/api/oidcpar", **par)
    required["oauth-par-required"] = True
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidcpar", "display_name": "OpenID Connect PAR only",
                                      "enabled": True, "parameters": required})
    add_user(api)
    redirect_port = free_port()
    redirect = "http://127.0.0.1:%d/callback" % redirect_port
    # A confidential client takes only the methods its token_endpoint_auth_method lists: Basic here, the RFC's
    # default, so the body form is refused (403) for the same client and code.
    # glewlwyd compares HTTP Basic credentials as they come, without the form-decoding RFC 6749 2.3.1 asks for:
    # the usual client gets a secret whose encoding is itself, the "odd" one a secret that encoding changes.
    secret = "glewlwyd-client-secret-1"
    odd_secret = "s3cret with space:+/%"
    grants = ["code", "refresh_token", "device_authorization"]
    api.must("POST", "/client/", {"client_id": "authdeck-public", "name": "authdeck public", "confidential": False,
                                  "redirect_uri": [redirect], "authorization_type": grants, "scope": [],
                                  "enabled": True})
    api.must("POST", "/client/", {"client_id": "authdeck-confidential", "name": "authdeck confidential",
                                  "confidential": True, "password": secret, "redirect_uri": [redirect],
                                  "token_endpoint_auth_method": ["client_secret_basic"],
                                  "authorization_type": grants, "scope": [], "enabled": True})
    api.must("POST", "/client/", {"client_id": "authdeck-odd", "name": "authdeck odd secret",
                                  "confidential": True, "password": odd_secret, "redirect_uri": [redirect],
                                  "token_endpoint_auth_method": ["client_secret_basic"],
                                  "authorization_type": grants, "scope": [], "enabled": True})
    jwt_clients = register_jwt_clients(api, folder, redirect, grants)
    introspection = register_introspection_client(api, redirect, grants, secret)
    grant_clients = configure_grants(api, base, parameters, redirect, secret)
    # The request-object client: confidential (Basic), its P-256 public key in the `pubkey` property glewlwyd checks
    # request objects with; the private key in an owner-only file for authdeck's privateKeyFile. At its PAR endpoint
    # glewlwyd counts a request object signed with that key as the client's authentication (private_key_jwt), so the
    # client lists that method too.
    jar_key = os.path.join(folder, "jar-client.key")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", jar_key],
                   check=True, capture_output=True)
    os.chmod(jar_key, 0o600)
    jar_public = subprocess.run(["openssl", "pkey", "-in", jar_key, "-pubout"], check=True, capture_output=True,
                                text=True).stdout
    api.must("POST", "/client/", {"client_id": "authdeck-jar", "name": "authdeck signed requests",
                                  "confidential": True, "password": secret, "redirect_uri": [redirect],
                                  "token_endpoint_auth_method": ["client_secret_basic", "private_key_jwt"],
                                  "pubkey": jar_public,
                                  "authorization_type": grants, "scope": [], "enabled": True})
    end_session = add_end_session(api, base, parameters, redirect)
    shaping = configure_shaping(api, base, parameters, redirect, grants)
    print(json.dumps({
        "baseURL": base, "issuer": issuer, "redirectURI": redirect, "redirectPort": redirect_port,
        "user": "alice", "password": "alice-password-1", "email": "alice@example.org", "name": "Alice Example",
        "subject": None, "publicClient": "authdeck-public", "confidentialClient": "authdeck-confidential",
        "clientSecret": secret, "deviceClient": "authdeck-public", **grant_clients,
        "oddClient": "authdeck-odd", "oddSecret": odd_secret, "dpopIssuer": base + "/api/oidcdpop",
        "fapiIssuer": base + "/api/oidcx", "parRequiredIssuer": base + "/api/oidcpar",
        "jarClient": "authdeck-jar", "jarKeyFile": jar_key, **jwt_clients, **end_session, **introspection,
        **shaping,
    }), flush=True)


def add_end_session(api, base, parameters, redirect):
    """RP-Initiated Logout (docs/OIDC.md, "Session management"): an instance with session-management-allowed, which
    names its end_session endpoint in discovery and a `sid` in every ID token (its session cookie's name and
    lifetime are required with it), and a public client with a registered post_logout_redirect_uris entry: a fixed
    loopback address, as providers register them."""
    issuer = base + "/api/oidcsm"
    settings = dict(parameters, iss=issuer, **{
        "session-management-allowed": True, "session-cookie-name": "GLEWLWYD_OIDC_SID",
        "session-cookie-expiration": 2419200,
    })
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidcsm", "display_name": "OpenID Connect sessions",
                                      "enabled": True, "parameters": settings})
    # The package's client backend lists only the singular registration field; the end_session endpoint reads the
    # plural list, so the operator adds it to the backend's data format (as glewlwyd's own tests have it).
    backend = api.must("GET", "/mod/client/database")
    backend["parameters"]["data-format"]["post_logout_redirect_uris"] = {"multiple": True, "read": True,
                                                                         "write": True}
    api.must("PUT", "/mod/client/database", backend)
    api.must("PUT", "/mod/client/database/reset/")  # the running instance takes the new format
    logout = "http://127.0.0.1:%d/logout" % free_port()
    api.must("POST", "/client/", {"client_id": "authdeck-logout", "name": "authdeck end session",
                                  "confidential": False, "redirect_uri": [redirect],
                                  "post_logout_redirect_uris": [logout],
                                  "authorization_type": ["code", "refresh_token"], "scope": [], "enabled": True})
    return {"endSessionIssuer": issuer, "logoutClient": "authdeck-logout", "postLogoutRedirectURI": logout}


def configure_shaping(api, base, parameters, redirect, grants):
    """An instance for shaped authorization requests (glewlwyd docs/OIDC.md): resource indicators (RFC 8707) allowed
    for the `openid` scope's one resource, rich authorization requests (`oauth-rar-allowed`, one `rar-types` entry,
    taken unsigned) for a client whose `authorization_details_types` property lists it, the `name` claim only on
    demand, so it appears only when a `claims` request asks for it, and pushed requests. A public client of its own."""
    resource = "https://api.shape.test/"
    shape = dict(parameters, iss=base + "/api/oidcshape", **{
        "resource-allowed": True, "resource-scope": {"openid": [resource]},
        "resource-client-property": "resource", "resource-scope-and-client-property": False,
        "oauth-rar-allowed": True, "rar-types-client-property": "authorization_details_types",
        "rar-allow-auth-unsigned": True, "rar-allow-auth-unencrypted": True,
        "rar-types": {"payment_initiation": {"scopes": ["openid"], "locations": [resource],
                                             "actions": ["initiate", "status"], "datatypes": [], "enriched": [],
                                             "description": "a payment"}},
        "name-claim": "on-demand",
        "oauth-par-allowed": True, "oauth-par-required": False, "oauth-par-duration": 90,
        "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:",
    })
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidcshape", "display_name": "OpenID Connect shaped",
                                      "enabled": True, "parameters": shape})
    api.must("POST", "/client/", {"client_id": "authdeck-shape", "name": "authdeck shaped requests",
                                  "confidential": False, "redirect_uri": [redirect], "authorization_type": grants,
                                  "authorization_details_types": ["payment_initiation"], "scope": [],
                                  "enabled": True})
    return {"shapeIssuer": base + "/api/oidcshape", "shapeClient": "authdeck-shape", "shapeResource": resource}


def certificate(folder, name, subject, extensions, issuer=None):
    """A new RSA key (owner-only) and its certificate from openssl: self-signed, or issued by `issuer` (its
    certificate and key files). Returns the certificate's and the key's paths."""
    key, pem = os.path.join(folder, name + ".key"), os.path.join(folder, name + ".pem")
    command = ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", pem,
               "-subj", subject, "-days", "2"]
    for extension in extensions:
        command += ["-addext", extension]
    if issuer:
        command += ["-CA", issuer[0], "-CAkey", issuer[1]]
    subprocess.run(command, check=True, capture_output=True)
    os.chmod(key, 0o600)
    return pem, key


def make_pki(folder):
    """A private CA, glewlwyd's server certificate for 127.0.0.1 from it, two client certificates it issued (the
    registered client's and another name's) and two self-signed ones (the registered and an unknown one)."""
    pki = os.path.join(folder, "pki")
    os.makedirs(pki, mode=0o700)
    ca = certificate(pki, "ca", "/CN=authdeck interop private CA",
                     ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"])
    leaf = ["basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment"]
    server = certificate(pki, "server", "/CN=127.0.0.1",
                         leaf + ["subjectAltName=IP:127.0.0.1,DNS:localhost", "extendedKeyUsage=serverAuth"], ca)
    client = ["extendedKeyUsage=clientAuth"]
    issued = certificate(pki, "client", "/CN=authdeck-mtls",
                         leaf + client + ["subjectAltName=DNS:%s" % MTLS_CLIENT_NAME], ca)
    other = certificate(pki, "client-other", "/CN=someone-else",
                        leaf + client + ["subjectAltName=DNS:someone-else.client.test"], ca)
    self_signed = certificate(pki, "self-signed", "/CN=authdeck-self-signed", leaf + client)
    unknown = certificate(pki, "self-signed-unknown", "/CN=authdeck-self-signed", leaf + client)
    # glewlwyd hands the plugin a client certificate only when the TLS layer verified it against
    # secure_connection_ca_file, so the registered self-signed certificate is listed there as its own anchor.
    trusted = os.path.join(pki, "trusted.pem")
    with open(trusted, "w") as out:
        out.write(open(ca[0]).read() + open(self_signed[0]).read())
    return {"caFile": ca[0], "serverCertificate": server[0], "serverKey": server[1], "trusted": trusted,
            "clientCertificate": issued[0], "clientKey": issued[1],
            "otherCertificate": other[0], "otherKey": other[1],
            "selfSignedCertificate": self_signed[0], "selfSignedKey": self_signed[1],
            "unknownCertificate": unknown[0], "unknownKey": unknown[1]}


def certificate_jwk(pem):
    """The public JWK of a certificate's RSA key with the certificate in `x5c` (RFC 7517 4.7), read by openssl: how
    glewlwyd holds a self_signed_tls_client_auth client's certificate."""
    der = subprocess.run(["openssl", "x509", "-in", pem, "-outform", "DER"], check=True, capture_output=True).stdout
    public = subprocess.run(["openssl", "x509", "-in", pem, "-noout", "-pubkey"], check=True, capture_output=True,
                            text=True).stdout
    jwk = rsa_jwk(public, "self-signed")
    jwk["x5c"] = [base64.b64encode(der).decode()]
    return jwk


def configure_tls(folder, base, server, tls):
    """glewlwyd over HTTPS: one OpenID Connect instance taking client certificates from the TLS session, at its
    `mtls/` aliases (RFC 8705 5), self-signed ones too, and pushed authorization requests; the user; a client registered by its certificate's DNS
    name (tls_client_auth) and one by its self-signed certificate (self_signed_tls_client_auth)."""
    context = ssl.create_default_context(cafile=tls["caFile"])
    api = admin(folder, base, server, context)
    issuer = base + "/api/oidc"
    parameters = plugin_parameters(folder, issuer)
    parameters.update({"client-cert-source": "TLS", "client-cert-use-endpoint-aliases": True,
                       "client-cert-self-signed-allowed": True, "oauth-par-allowed": True,
                       "oauth-par-required": False, "oauth-par-duration": 90,
                       "oauth-par-request_uri-prefix": "urn:ietf:params:oauth:request_uri:"})
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidc", "display_name": "OpenID Connect mTLS",
                                      "enabled": True, "parameters": parameters})
    add_user(api)
    redirect_port = free_port()
    redirect = "http://127.0.0.1:%d/callback" % redirect_port
    common = {"confidential": True, "redirect_uri": [redirect], "scope": [], "enabled": True,
              "authorization_type": ["code", "refresh_token", "device_authorization"]}
    api.must("POST", "/client/", dict(common, client_id="authdeck-mtls", name="authdeck tls_client_auth",
                                      token_endpoint_auth_method=["tls_client_auth"],
                                      tls_client_auth_san_dns=MTLS_CLIENT_NAME))
    api.must("POST", "/client/", dict(common, client_id="authdeck-self-signed",
                                      name="authdeck self_signed_tls_client_auth",
                                      token_endpoint_auth_method=["self_signed_tls_client_auth"],
                                      jwks={"keys": [certificate_jwk(tls["selfSignedCertificate"])]}))
    print(json.dumps({
        "baseURL": base, "issuer": issuer, "redirectURI": redirect, "redirectPort": redirect_port,
        "user": "alice", "password": "alice-password-1", "email": "alice@example.org", "name": "Alice Example",
        "subject": None, "publicClient": "authdeck-mtls", "confidentialClient": "authdeck-mtls", "clientSecret": "",
        "deviceClient": "authdeck-mtls", "mtlsClient": "authdeck-mtls", "selfSignedClient": "authdeck-self-signed",
        **{key: value for key, value in tls.items() if key not in ("serverKey", "trusted")},
    }), flush=True)


def private_key(folder, name, *genpkey):
    """A new PKCS#8 private key from openssl, owner-only in FOLDER, and its public half as PEM."""
    path = os.path.join(folder, name)
    subprocess.run(["openssl", "genpkey", *genpkey, "-out", path], check=True, capture_output=True)
    os.chmod(path, 0o600)
    public = subprocess.run(["openssl", "pkey", "-in", path, "-pubout"], check=True, capture_output=True, text=True)
    return path, public.stdout


def rsa_jwk(public_pem, kid):
    """The public JWK of an RSA key (RFC 7518 6.3.1), its modulus and exponent read by openssl."""
    text = subprocess.run(["openssl", "rsa", "-pubin", "-noout", "-modulus"], input=public_pem, check=True,
                          capture_output=True, text=True).stdout
    modulus = bytes.fromhex(text.strip().split("=", 1)[1])

    def b64(data):
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
    return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid, "n": b64(modulus), "e": b64(b"\x01\x00\x01")}


def register_jwt_clients(api, folder, redirect, grants):
    rsa_key, rsa_public = private_key(folder, "client-rsa.pem", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048")
    ec_key, ec_public = private_key(folder, "client-ec.pem", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256")
    wrong_key, _ = private_key(folder, "client-wrong.pem", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048")
    jwt_secret = "glewlwyd-jwt-secret-0123456789abcdef"
    common = {"confidential": True, "redirect_uri": [redirect], "authorization_type": grants, "scope": [],
              "enabled": True}
    api.must("POST", "/client/", dict(common, client_id="authdeck-rsa-jwt", name="authdeck RSA private_key_jwt",
                                      token_endpoint_auth_method=["private_key_jwt"],
                                      jwks={"keys": [rsa_jwk(rsa_public, "authdeck-rsa-1")]}))
    api.must("POST", "/client/", dict(common, client_id="authdeck-ec-jwt", name="authdeck P-256 private_key_jwt",
                                      token_endpoint_auth_method=["private_key_jwt"], pubkey=ec_public))
    api.must("POST", "/client/", dict(common, client_id="authdeck-secret-jwt", name="authdeck client_secret_jwt",
                                      token_endpoint_auth_method=["client_secret_jwt"], client_secret=jwt_secret,
                                      password=jwt_secret))
    return {
        "rsaJWTClient": "authdeck-rsa-jwt", "rsaKeyFile": rsa_key, "rsaKeyID": "authdeck-rsa-1",
        "ecJWTClient": "authdeck-ec-jwt", "ecKeyFile": ec_key, "wrongKeyFile": wrong_key,
        "secretJWTClient": "authdeck-secret-jwt", "jwtSecret": jwt_secret,
    }


def register_introspection_client(api, redirect, grants, secret):
    """A confidential client (Basic) that may introspect the tokens issued to it: glewlwyd's docs/OIDC.md lets a
    token's own client call /introspect with its id and secret as HTTP Basic (the plugin's
    introspection-revocation-allow-target-client) when the client has the authorization type client_credentials."""
    api.must("POST", "/client/", {"client_id": "authdeck-introspect", "name": "authdeck introspection",
                                  "confidential": True, "password": secret, "redirect_uri": [redirect],
                                  "token_endpoint_auth_method": ["client_secret_basic"],
                                  "authorization_type": grants + ["client_credentials"], "scope": [],
                                  "enabled": True})
    return {"introspectionClient": "authdeck-introspect"}


def configure_grants(api, base, parameters, redirect, secret):
    """One more instance, so the scenarios above stay as they are, for the grants without a browser: client
    credentials (auth-type-client-enabled; a confidential client with that grant and the scope it may ask for) and
    CIBA in poll mode (glewlwyd docs/OIDC.md, its oauth-ciba-* settings; a confidential client whose
    backchannel_token_delivery_mode is poll). Tokens are introspected by the client they were issued to
    (introspection-revocation-allow-target-client, which glewlwyd grants to clients with client_credentials)."""
    grants = dict(parameters, iss=base + "/api/oidcgrants", **{
        # glewlwyd serves client_credentials only where plain OAuth 2.0 requests are allowed too.
        "auth-type-client-enabled": True, "allow-non-oidc": True, "oauth-ciba-allowed": True, "oauth-ciba-default-expiry": 600,
        "oauth-ciba-maximum-expiry": 1200, "oauth-ciba-mode-poll-allowed": True,
        "oauth-ciba-mode-ping-allowed": False, "oauth-ciba-mode-push-allowed": False,
        "oauth-ciba-allow-https-non-secure": False, "oauth-ciba-user-code-allowed": False,
        "oauth-ciba-email-allowed": False,
    })
    api.must("POST", "/mod/plugin/", {"module": "oidc", "name": "oidcgrants", "display_name": "OpenID Connect grants",
                                      "enabled": True, "parameters": grants})
    common = {"confidential": True, "password": secret, "redirect_uri": [redirect], "enabled": True,
              "token_endpoint_auth_method": ["client_secret_basic"]}
    api.must("POST", "/client/", dict(common, client_id="authdeck-machine", name="authdeck client credentials",
                                      authorization_type=["client_credentials"], scope=["openid"]))
    api.must("POST", "/client/", dict(common, client_id="authdeck-ciba", name="authdeck CIBA", scope=[],
                                      authorization_type=["urn:openid:params:grant-type:ciba", "refresh_token",
                                                          "client_credentials"],
                                      backchannel_token_delivery_mode="poll"))
    return {"grantsIssuer": base + "/api/oidcgrants", "machineClient": "authdeck-machine",
            "cibaClient": "authdeck-ciba"}


if __name__ == "__main__":
    main()
