# A stand-in for a cloud's token service on 127.0.0.1 (a port of its own), for the drivers of
# CloudSDKTests: it checks that the subject token it is handed is a strivacity-issued JWT for
# the expected audience (payload only: the emulator's signature is the tenant's business, the
# test compares the token with `strivacity token`'s), and answers with credentials of its own
# that the test then finds in the SDK. Not a Google or AWS service: only what the SDKs send.
import base64
import http.server
import json
import os
import secrets
import threading
import urllib.parse


def jwt_payload(token):
    parts = token.split(".")
    if len(parts) != 3:
        raise ValueError("not a JWT")
    body = parts[1] + "=" * (-len(parts[1]) % 4)
    return json.loads(base64.urlsafe_b64decode(body))


def check_subject_token(token, problems):
    """The token's payload against EXPECT_ISS and EXPECT_AUD; a problem appended for each miss."""
    try:
        claims = jwt_payload(token)
    except Exception as error:  # noqa: BLE001 - any failure to read it is the finding
        problems.append("subject token unreadable: %s" % error)
        return None
    audiences = claims.get("aud")
    audiences = audiences if isinstance(audiences, list) else [audiences]
    if os.environ["EXPECT_AUD"] not in audiences:
        problems.append("subject token aud %r lacks %r" % (audiences, os.environ["EXPECT_AUD"]))
    if claims.get("iss") != os.environ["EXPECT_ISS"]:
        problems.append("subject token iss %r is not %r" % (claims.get("iss"), os.environ["EXPECT_ISS"]))
    return claims


class StandIn:
    """Serves `answer(path, form) -> (status, content_type, body)` on 127.0.0.1; `problems` and
    `requests` are what it saw, `headers` the last request's (a signed call's Authorization)."""

    def __init__(self, answer):
        self.problems = []
        self.requests = 0
        self.headers = {}
        self.issued = "standin-" + secrets.token_hex(12)
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode("utf-8")))
                outer.requests += 1
                outer.headers = self.headers
                status, content_type, body = answer(outer, self.path, form)
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
