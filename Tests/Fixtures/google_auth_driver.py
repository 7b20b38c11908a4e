# google-auth (the pinned copy, Scripts/fetch-pytools) with the credential configuration
# `strivacity setup-gcloud` writes, against a stand-in for Google's STS: run as
#   python3 -I -S -B google_auth_driver.py SITE CONFIG_FILE -- STRIVACITY setup-gcloud ARGS…
# it starts the stand-in, runs setup-gcloud with --token-url pointed at it, loads CONFIG_FILE as
# google-auth loads GOOGLE_APPLICATION_CREDENTIALS, refreshes (google-auth runs the command in
# it and exchanges the token) and prints one JSON line: the SDK's token, the stand-in's, and
# what the stand-in found wrong. EXPECT_ISS, EXPECT_AUD: the subject token's issuer and audience;
# EXPECT_GOOGLE_AUDIENCE: the pool provider the exchange must name.
import os
import subprocess
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))

import google.auth  # noqa: E402
import google.auth.transport.urllib3  # noqa: E402
import urllib3  # noqa: E402
from sts_standin import StandIn, check_subject_token  # noqa: E402

JWT = "urn:ietf:params:oauth:token-type:jwt"


def answer(standin, path, form):
    problems = standin.problems
    expected = {
        "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
        "audience": os.environ["EXPECT_GOOGLE_AUDIENCE"],
        "subject_token_type": JWT,
        "requested_token_type": "urn:ietf:params:oauth:token-type:access_token",
    }
    if path != "/v1/token":
        problems.append("exchange at %s" % path)
    for name, value in expected.items():
        if form.get(name) != value:
            problems.append("%s is %r, not %r" % (name, form.get(name), value))
    if check_subject_token(form.get("subject_token", ""), problems) is None or problems:
        return 400, "application/json", '{"error":"invalid_grant","error_description":"refused by the stand-in"}'
    body = '{"access_token":"%s","issued_token_type":"urn:ietf:params:oauth:token-type:access_token",' \
        '"token_type":"Bearer","expires_in":3600}' % standin.issued
    return 200, "application/json", body


def main():
    site, config_file = sys.argv[1], sys.argv[2]
    setup = sys.argv[sys.argv.index("--") + 1:]
    standin = StandIn(answer)
    token_url = "http://127.0.0.1:%d/v1/token" % standin.port
    written = subprocess.run(setup + ["--token-url", token_url], capture_output=True, text=True)
    if written.returncode != 0:
        print('{"setup_failed": %d}' % written.returncode)
        sys.stderr.write(written.stderr)
        return
    os.environ["GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES"] = "1"
    request = google.auth.transport.urllib3.Request(urllib3.PoolManager())
    # Loaded without scopes (with them google-auth would look the project up at Cloud Resource
    # Manager, which is not here), then scoped as Google's client libraries scope it.
    credentials, _ = google.auth.load_credentials_from_file(config_file, request=request)
    credentials = credentials.with_scopes(["https://www.googleapis.com/auth/cloud-platform"])
    error = None
    try:
        credentials.refresh(request)
    except Exception as failure:  # noqa: BLE001 - reported to the test
        error = "%s: %s" % (type(failure).__name__, failure)
    import json
    print(json.dumps({
        "sdk_token": credentials.token, "issued": standin.issued, "problems": standin.problems,
        "exchanges": standin.requests, "error": error, "kind": type(credentials).__module__,
    }))
    standin.close()


main()
