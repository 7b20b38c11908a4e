# The AWS CLI (the pinned awscli, Scripts/fetch-awscli) getting its credentials from
# `strivacity aws-credential-process` (credential_process), against a stand-in for AWS STS:
#   python3 -I -S -B awscli_driver.py SITE STEPS_JSON
# starts the stand-in (AWS_ENDPOINT_URL_STS points the CLI and strivacity at it), writes an AWS
# config whose profiles name the commands in PROCESS_* (profile `good`: PROCESS_GOOD, …), or
# uses the one DRIVER_CONFIG names (written by `strivacity setup aws`), then
# runs each step: ["aws", PROFILE] is `aws sts get-caller-identity --profile PROFILE`, any other
# argv is run as it is; and prints one JSON line: each step's status, stdout, stderr and the
# number of AssumeRoleWithWebIdentity calls so far, what the stand-in issued, and what it found
# wrong. The stand-in assumes EXPECT_ROLE (credentials for an hour) and EXPECT_ROLE + "-short"
# (for 10 minutes), refuses any other role in words with a terminal escape in them, checks the
# web identity token (EXPECT_ISS, EXPECT_AUD, sts_standin.check_subject_token), and answers
# GetCallerIdentity only for a call signed with credentials it issued.
import base64
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from sts_standin import StandIn, check_subject_token  # noqa: E402

SITE = sys.argv[1]
ASSUMED = """<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleWithWebIdentityResult>
    <SubjectFromWebIdentityToken>%(sub)s</SubjectFromWebIdentityToken>
    <Audience>%(aud)s</Audience>
    <AssumedRoleUser>
      <Arn>arn:aws:sts::123456789012:assumed-role/strivacity-ci/%(session)s</Arn>
      <AssumedRoleId>AROASTANDIN:%(session)s</AssumedRoleId>
    </AssumedRoleUser>
    <Credentials>
      <AccessKeyId>%(key)s</AccessKeyId>
      <SecretAccessKey>%(secret)s</SecretAccessKey>
      <SessionToken>%(session_token)s</SessionToken>
      <Expiration>%(expiration)s</Expiration>
    </Credentials>
    <Provider>%(iss)s</Provider>
  </AssumeRoleWithWebIdentityResult>
  <ResponseMetadata><RequestId>standin</RequestId></ResponseMetadata>
</AssumeRoleWithWebIdentityResponse>
"""
IDENTITY = """<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <GetCallerIdentityResult>
    <Arn>arn:aws:sts::123456789012:assumed-role/strivacity-ci/%(session)s</Arn>
    <UserId>AROASTANDIN:%(session)s</UserId>
    <Account>123456789012</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata><RequestId>standin</RequestId></ResponseMetadata>
</GetCallerIdentityResponse>
"""
REFUSED = """<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <Error><Type>Sender</Type><Code>AccessDenied</Code>
  <Message>Not authorized to perform sts:AssumeRoleWithWebIdentity \x1b]0;owned\x07</Message></Error>
  <RequestId>standin</RequestId>
</ErrorResponse>
"""

assumed = 0
issued = {}  # access key id -> (session token, session name)


def answer(standin, path, form):
    global assumed
    problems = standin.problems
    action = form.get("Action")
    if action == "GetCallerIdentity":
        authorization = standin.headers.get("Authorization", "")
        match = re.search(r"Credential=([A-Z0-9]+)/", authorization)
        key = match.group(1) if match else None
        if key not in issued or standin.headers.get("X-Amz-Security-Token") != issued[key][0]:
            problems.append("GetCallerIdentity not signed with issued credentials: %r" % authorization[:60])
            return 403, "text/xml", REFUSED.replace("\x1b]0;owned\x07", "")
        return 200, "text/xml", IDENTITY % {"session": issued[key][1]}
    if action != "AssumeRoleWithWebIdentity" or form.get("Version") != "2011-06-15":
        problems.append("unexpected call %r %r" % (action, form.get("Version")))
        return 400, "text/xml", REFUSED
    assumed += 1
    role = form.get("RoleArn")
    if role not in (os.environ["EXPECT_ROLE"], os.environ["EXPECT_ROLE"] + "-short"):
        return 403, "text/xml", REFUSED
    claims = check_subject_token(form.get("WebIdentityToken", ""), problems)
    if claims is None or problems:
        return 400, "text/xml", REFUSED
    lifetime = 600 if role.endswith("-short") else 3600
    key = "ASIA" + os.urandom(8).hex().upper()
    session_token = base64.b64encode(os.urandom(300)).decode()
    issued[key] = (session_token, form.get("RoleSessionName", ""))
    values = {
        "sub": claims.get("sub", ""), "aud": os.environ["EXPECT_AUD"], "iss": claims.get("iss", ""),
        "session": form.get("RoleSessionName", ""), "key": key, "session_token": session_token,
        "secret": base64.b64encode(os.urandom(30)).decode(),
        "expiration": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + lifetime)),
    }
    return 200, "text/xml", ASSUMED % values


def main():
    standin = StandIn(answer)
    directory = os.environ["DRIVER_DIR"]
    config = os.environ.get("DRIVER_CONFIG") or os.path.join(directory, "aws-config")
    if not os.environ.get("DRIVER_CONFIG"):
        with open(config, "w", encoding="utf-8") as out:
            for name, value in sorted(os.environ.items()):
                if name.startswith("PROCESS_"):
                    out.write("[profile %s]\ncredential_process = %s\nregion = us-east-1\n\n"
                              % (name[8:].lower(), value))
    for name in list(os.environ):
        if name.startswith("AWS_"):
            os.environ.pop(name)
    os.environ.update({
        "AWS_ENDPOINT_URL_STS": "http://127.0.0.1:%d" % standin.port, "AWS_CONFIG_FILE": config,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull, "AWS_EC2_METADATA_DISABLED": "true",
        "AWS_PAGER": "", "AWS_RETRY_MODE": "standard", "AWS_MAX_ATTEMPTS": "1",
    })
    aws = [sys.executable, "-I", "-S", "-B", "-c",
           "import sys; sys.path.insert(0, %r); from awscli.clidriver import main; sys.exit(main())" % SITE]
    results = []
    for step in json.loads(sys.argv[2]):
        argv = aws + ["sts", "get-caller-identity", "--output", "json", "--profile", step[1]] \
            if step[0] == "aws" else step
        run = subprocess.run(argv, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        results.append({"status": run.returncode, "stdout": run.stdout, "stderr": run.stderr, "assumed": assumed})
    print(json.dumps({"steps": results, "issued": sorted(issued), "problems": standin.problems}))
    standin.close()


main()
