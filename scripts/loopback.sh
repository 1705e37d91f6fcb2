# Helpers the loopback scripts source (server-benchmark.sh, info-benchmark.sh, soak.sh,
# scale-out.sh, moto-bucket.sh): a work folder and the processes started in it, loopback ports,
# waiting for a server, nginx's temporary folders.

# A work folder, $work (/tmp/webimage-NAME.XXXXXX), and $started_pids: at exit each process
# listed there is ended by its PID, with its children (thumbor's forked workers), and the folder
# removed.
work_folder() {
    work=$(mktemp -d "/tmp/webimage-$1.XXXXXX")
    started_pids=()
    trap end_started EXIT
}
end_started() {
    local pid
    for pid in "${started_pids[@]}"; do
        kill $(pgrep -P "$pid" 2>/dev/null) "$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    rm -rf "$work"
}

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Waits up to 30 s for URL to answer 2xx; else prints the tails of the logs in LOG_DIR and exits.
wait_for() {
    local url=$1 logs=$2 tries=0
    until curl -sf -o /dev/null "$url"; do
        tries=$((tries + 1))
        [ $tries -lt 300 ] || { echo "no answer from $url; logs in $logs" >&2; tail -n 5 "$logs"/* >&2; exit 1; }
        sleep 0.1
    done
}

# nginx.conf lines (inside http) that keep nginx's temporary folders under DIR.
nginx_temp_paths() {
    local name
    for name in client_body proxy fastcgi uwsgi scgi; do echo "    ${name}_temp_path $1/$name;"; done
}

# The top of an nginx.conf for a server in the foreground under DIR: WORKERS worker processes of
# CONNECTIONS connections each, its pid and error log in DIR. The http block follows it.
nginx_head() {
    local dir=$1 workers=$2 connections=$3
    printf 'worker_processes %s;\ndaemon off;\npid %s/nginx.pid;\nerror_log %s/logs/nginx-error.log warn;\nevents { worker_connections %s; }\n' \
        "$workers" "$dir" "$dir" "$connections"
}
