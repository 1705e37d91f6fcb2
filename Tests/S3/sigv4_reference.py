"""Signs fixed S3 GET requests with botocore's own SigV4 signer (S3SigV4Auth) at a fixed time,
with fixed credentials, and prints what it made as JSON: SignatureV4Tests checks our signer
against the committed output (Tests/S3/botocore-sigv4.json). Run with the moto venv's Python
(scripts/moto-venv.sh installs botocore with moto):

    /opt/moto-venv/bin/python Tests/S3/sigv4_reference.py > Tests/S3/botocore-sigv4.json
"""
import datetime
import json
from unittest import mock

import botocore
import botocore.auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

WHEN = datetime.datetime(2026, 11, 28, 2, 30, 45)
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
CASES = [
    # (name, url, region, session token): URLs as S3Source builds them.
    ("path style on loopback", "http://127.0.0.1:9000/photos/rocket.jpg", "us-east-1", None),
    ("key with space, unicode, plus, brackets", "http://127.0.0.1:9000/photos/a%20b/%E1%88%B4%2Bx%20%281%29.jpg", "us-east-1", None),
    ("version", "http://127.0.0.1:9000/photos/v.png?versionId=3HL4kqtJlcpXroDTDmJ%2Brmsk", "eu-central-1", None),
    ("virtual host on AWS", "https://photos.s3.us-west-1.amazonaws.com/2026/11/cat.webp", "us-west-1", None),
    ("session token", "https://s3.eu-west-1.amazonaws.com/my.dotted.bucket/k", "eu-west-1", "IQoJb3JpZ2luX2VjEXAMPLETOKEN//////////wEaCXVzLWVhc3QtMSJHMEUCIQ=="),
    ("default port written", "https://minio.example.com:443/b/k.jpg", "us-east-1", None),
]


def sign(url, region, token):
    credentials = Credentials("AKIAIOSFODNN7EXAMPLE", SECRET, token)
    request = AWSRequest(method="GET", url=url)
    request.context["payload_signing_enabled"] = True
    signer = botocore.auth.S3SigV4Auth(credentials, "s3", region)
    with mock.patch.object(botocore.auth, "get_current_datetime", lambda: WHEN):
        canonical = None
        original = signer.canonical_request

        def keep(request):
            nonlocal canonical
            canonical = original(request)
            return canonical

        signer.canonical_request = keep
        signer.add_auth(request)
    return {
        "url": url, "region": region, "sessionToken": token,
        "canonicalRequest": canonical,
        "headers": {name: request.headers[name] for name in request.headers.keys()},
    }


print(json.dumps({
    "botocore": botocore.__version__,
    "date": WHEN.strftime("%Y%m%dT%H%M%SZ"),
    "accessKeyID": "AKIAIOSFODNN7EXAMPLE",
    "secretAccessKey": SECRET,
    "cases": [dict(name=name, **sign(url, region, token)) for name, url, region, token in CASES],
}, indent=2, ensure_ascii=False))
