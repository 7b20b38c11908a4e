#!/usr/bin/env python3
"""A registry's token service, as Docker's token authentication specifies it, for RegistryClientTests.

Docker's registry (Debian's docker-registry 2.8, `auth: token`) sends clients here with a Bearer
challenge; the client comes back with Basic credentials (what docker-credential-strivacity
answered) and the scope it wants. The password is accepted only when it is an access token the
tenant's API accepts: it is checked by calling the API itself (the emulator's protected resource,
GET with the token as Bearer), never by reading it here. Then the service answers a registry
token, a JWT signed with ES256 by the key whose certificate the registry trusts (`x5c`), granting
the actions asked for.

    registry-token-service.py --issuer URL --api-url URL --service NAME --key KEY.pem --cert CERT.pem
                              --port-file FILE --log FILE

Each request is logged as one line (`granted USER SCOPE…` or `refused WHY`), never with a token.
Standard library and the openssl command only.
"""
import argparse
import base64
import http.server
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def der_ecdsa_to_raw(der):
    """openssl's DER ECDSA signature (SEQUENCE of two INTEGERs) as JWS's r || s, 32 bytes each."""

    def integer(at):
        assert der[at] == 0x02
        length = der[at + 1]
        value = der[at + 2 : at + 2 + length].lstrip(b"\x00")
        return value.rjust(32, b"\x00"), at + 2 + length

    assert der[0] == 0x30
    at = 3 if der[1] & 0x80 else 2
    r, at = integer(at)
    s, _ = integer(at)
    return r + s


def main():
    parser = argparse.ArgumentParser()
    for name in ("--issuer", "--api-url", "--service", "--key", "--cert", "--port-file", "--log"):
        parser.add_argument(name, required=True)
    options = parser.parse_args()
    certificate = subprocess.run(
        ["openssl", "x509", "-in", options.cert, "-outform", "DER"], check=True, capture_output=True
    ).stdout
    log = open(options.log, "a", buffering=1)

    def sign(claims):
        header = {"typ": "JWT", "alg": "ES256", "x5c": [base64.b64encode(certificate).decode()]}
        signing_input = (b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())).encode()
        der = subprocess.run(
            ["openssl", "dgst", "-sha256", "-sign", options.key], input=signing_input, check=True, capture_output=True
        ).stdout
        return signing_input.decode() + "." + b64url(der_ecdsa_to_raw(der))

    def api_accepts(token):
        request = urllib.request.Request(options.api_url, headers={"Authorization": "Bearer " + token})
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                return answer.status == 200
        except urllib.error.HTTPError:
            return False

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body, headers=()):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def refuse(self, why):
            log.write("refused " + why + "\n")
            self.answer(401, {"errors": [{"code": "UNAUTHORIZED", "message": why}]},
                        [("WWW-Authenticate", 'Basic realm="registry tokens"')])

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            query = urllib.parse.parse_qs(url.query)
            if url.path != "/token" or query.get("service") != [options.service]:
                return self.answer(404, {"errors": [{"code": "NOT_FOUND", "message": "no such token service"}]})
            authorization = self.headers.get("Authorization", "")
            if not authorization.lower().startswith("basic "):
                return self.refuse("no credentials")
            try:
                user, _, password = base64.b64decode(authorization[6:], validate=True).decode().partition(":")
            except ValueError:
                return self.refuse("malformed credentials")
            if not api_accepts(password):
                return self.refuse("the API refuses the password as a token (user " + user + ")")
            access = []
            for scope in query.get("scope", []):
                kind, _, rest = scope.partition(":")
                name, _, actions = rest.rpartition(":")
                access.append({"type": kind, "name": name, "actions": actions.split(",")})
            now = int(time.time())
            token = sign({
                "iss": "strivacity-test-tokens", "sub": user, "aud": options.service, "iat": now, "nbf": now - 5,
                "exp": now + 300, "jti": str(uuid.uuid4()), "access": access,
            })
            log.write("granted " + user + " " + " ".join(query.get("scope", [])) + "\n")
            self.answer(200, {"token": token, "access_token": token, "expires_in": 300})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(options.port_file + ".tmp", "w") as file:
        file.write(str(server.server_address[1]))
    os.rename(options.port_file + ".tmp", options.port_file)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
