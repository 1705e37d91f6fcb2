# Sourced by the shared-store scripts (scale-out-s3.sh, shared-cache-cpu.sh): a work folder
# ($work) removed at exit with every process listed in $pids, `free_port`, and moto's S3 server
# (scripts/moto-venv.sh's venv, auth off) on a free port ($moto_port) holding the bucket `results`,
# with the AWS variables the replicas read exported.
venv="${WEBIMAGE_TEST_MOTO_VENV:-/opt/moto-venv}"
[ -x "$venv/bin/moto_server" ] || bash scripts/moto-venv.sh
work="$(mktemp -d "/tmp/webimage-$1.XXXXXX")"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
    wait 2> /dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { "$venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
moto_port=$(free_port)
"$venv/bin/moto_server" -H 127.0.0.1 -p "$moto_port" > "$work/moto.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 300); do grep -qs "Running on" "$work/moto.log" && break; sleep 0.1; done
export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1
"$venv/bin/python" -c "import boto3, sys; boto3.client('s3', endpoint_url=sys.argv[1]).create_bucket(Bucket='results')" "http://127.0.0.1:$moto_port"
