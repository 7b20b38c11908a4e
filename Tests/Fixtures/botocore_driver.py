# botocore (the pinned copy, Scripts/fetch-pytools) reading the web identity token file that
# `strivacity exec --file-env AWS_WEB_IDENTITY_TOKEN_FILE` keeps, against a stand-in for AWS STS:
# run as the command of that exec,
#   strivacity exec --api NAME --file-env AWS_WEB_IDENTITY_TOKEN_FILE -- python3 -I -S -B botocore_driver.py SITE
# it starts the stand-in (AWS_ENDPOINT_URL_STS points botocore at it), lets botocore's credential
# chain find the role and the token file in the environment as it does in a pod or a CI job,
# and prints one JSON line: the SDK's access key, the stand-in's, how it got them, and what the
# stand-in found wrong. AWS_ROLE_ARN comes from the test; EXPECT_ISS, EXPECT_AUD as for
# sts_standin.check_subject_token.
import json
import os
import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(1, os.path.dirname(os.path.abspath(__file__)))

import botocore.session  # noqa: E402
from sts_standin import StandIn, check_subject_token  # noqa: E402

RESPONSE = """<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>%(sub)s</SubjectFromWebIdentityToken>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/strivacity-ci/%(session)s</Arn>
      <AssumedRoleId>AROASTANDIN:%(session)s</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>%(key)s</AccessKeyId>
      <SecretAccessKey>standin-secret</SecretAccessKey>
      <SessionToken>standin-session</SessionToken>
      <Expiration>2099-01-01T00:00:00Z</Expiration>
    </Credentials>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>standin</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>
"""


def answer(standin, path, form):
    problems = standin.problems
    for name, value in [("Action", "AssumeRoleWithWebIdentity"), ("RoleArn", os.environ["AWS_ROLE_ARN"])]:
        if form.get(name) != value:
            problems.append("%s is %r, not %r" % (name, form.get(name), value))
    token = form.get("WebIdentityToken", "")
    # The token must be what the file strivacity keeps holds now.
    with open(os.environ["AWS_WEB_IDENTITY_TOKEN_FILE"], encoding="utf-8") as kept:
        if kept.read() != token:
            problems.append("WebIdentityToken is not the token file's content")
    claims = check_subject_token(token, problems)
    if claims is None or problems:
        body = '<ErrorResponse><Error><Type>Sender</Type><Code>InvalidIdentityToken</Code>' \
            '<Message>refused by the stand-in</Message></Error></ErrorResponse>'
        return 400, "text/xml", body
    key = "ASIA" + standin.issued[-16:].upper()
    values = {"sub": claims.get("sub", ""), "session": form.get("RoleSessionName", ""), "key": key}
    return 200, "text/xml", RESPONSE % values


def main():
    standin = StandIn(answer)
    for name in ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"]:
        os.environ.pop(name, None)
    os.environ.update({
        "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:%d" % standin.port, "AWS_REGION": "us-east-1",
        "AWS_CONFIG_FILE": os.devnull, "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_EC2_METADATA_DISABLED": "true",
    })
    error = key = method = None
    try:
        credentials = botocore.session.get_session().get_credentials()
        method = credentials.method
        key = credentials.get_frozen_credentials().access_key
    except Exception as failure:  # noqa: BLE001 - reported to the test
        error = "%s: %s" % (type(failure).__name__, failure)
    print(json.dumps({
        "sdk_key": key, "issued": "ASIA" + standin.issued[-16:].upper(), "method": method,
        "problems": standin.problems, "exchanges": standin.requests, "error": error,
    }))
    standin.close()


main()
