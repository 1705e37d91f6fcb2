"""Fills a moto server started with IAM authentication on (INITIAL_NO_AUTH_ACTION_COUNT=3) for
S3SourceTests: an IAM user with an access key and a policy allowing every S3 action (the three
unauthenticated calls), then, signed with that key by boto3, a private versioned bucket holding
the objects named on the command line as KEY=FILE (KEY=@SIZE: SIZE bytes of zeros), each put
once per FILE given for it (versions, oldest first). Prints JSON: the key, its secret, and the
version IDs of each object. `delete BUCKET KEY` (with the key in AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY) deletes every version of an object."""
import json
import os
import sys

import boto3
from botocore.config import Config

endpoint = sys.argv[1]
config = Config(region_name="us-east-1", retries={"max_attempts": 1})

if sys.argv[2] == "delete":
    s3 = boto3.client("s3", endpoint_url=endpoint, config=config)
    bucket, key = sys.argv[3], sys.argv[4]
    for version in s3.list_object_versions(Bucket=bucket, Prefix=key).get("Versions", []):
        if version["Key"] == key:
            s3.delete_object(Bucket=bucket, Key=key, VersionId=version["VersionId"])
    sys.exit(0)

bucket = sys.argv[2]
iam = boto3.client("iam", endpoint_url=endpoint, aws_access_key_id="bootstrap", aws_secret_access_key="bootstrap", config=config)
iam.create_user(UserName="webimage")
policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
iam.put_user_policy(UserName="webimage", PolicyName="s3", PolicyDocument=json.dumps(policy))
access = iam.create_access_key(UserName="webimage")["AccessKey"]

s3 = boto3.client(
    "s3", endpoint_url=endpoint, aws_access_key_id=access["AccessKeyId"], aws_secret_access_key=access["SecretAccessKey"],
    config=config,
)
s3.create_bucket(Bucket=bucket)
s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
versions = {}
for argument in sys.argv[3:]:
    key, source = argument.split("=", 1)
    if source.startswith("@"):
        body = bytes(int(source[1:]))
    else:
        with open(source, "rb") as file:
            body = file.read()
    answer = s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType="application/octet-stream")
    versions.setdefault(key, []).append(answer["VersionId"])
print(json.dumps({"accessKeyID": access["AccessKeyId"], "secretAccessKey": access["SecretAccessKey"], "versions": versions}))
