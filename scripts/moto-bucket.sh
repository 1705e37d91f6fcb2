# Sourced by the shared-store scripts (scale-out-s3.sh, shared-cache-cpu.sh): a work folder
# ($work) removed at exit with every process listed in $started_pids (scripts/loopback.sh's
# `work_folder`), `free_port`, and moto's S3 server
# (scripts/moto-venv.sh's venv, auth off) on a free port ($moto_port) holding the bucket `results`,
# with the AWS variables the replicas read exported.
venv="${WEBIMAGE_TEST_MOTO_VENV:-/opt/moto-venv}"
[ -x "$venv/bin/moto_server" ] || bash scripts/moto-venv.sh
source scripts/loopback.sh
work_folder "$1"
moto_port=$(free_port)
"$venv/bin/moto_server" -H 127.0.0.1 -p "$moto_port" > "$work/moto.log" 2>&1 &
started_pids+=($!)
for _ in $(seq 1 300); do grep -qs "Running on" "$work/moto.log" && break; sleep 0.1; done
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
"$venv/bin/python" -c "import boto3, sys; boto3.client('s3', endpoint_url=sys.argv[1]).create_bucket(Bucket='results')" "http://127.0.0.1:$moto_port"
