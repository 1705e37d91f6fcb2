#!/usr/bin/env python3
"""Counts the thread hand-offs of `webimage serve` requests: the voluntary context switches (a
thread that waits, then is woken: preemptions by other load are not counted) of all the
server's threads over N sequential requests on one keep-alive connection, per request. At
concurrency 1 each thread a request wakes (an event loop, a task pool thread, a blocking pool
thread, a timer) is a switch, so the figure counts the hand-offs a request costs (a busy server
batches some; this is the unloaded count).

Usage: scripts/handoff-count.py [WEBIMAGE_BINARY] [REQUESTS]
  (defaults: .build/debug/webimage, 400). Sources are local files (Tests/Images), so no origin
  is involved: "uncached" is a new result of a source in the server's memory (cb: each time),
  "cached" the same URL each time (a memory hit). Prints both, per request, and the thread count.
"""
import http.client, os, re, subprocess, sys, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/debug/webimage")
count = int(sys.argv[2]) if len(sys.argv) > 2 else 400
cache = f"/tmp/webimage-handoff-{os.getpid()}"
server = subprocess.Popen(
    [binary, "serve", "--bind", "127.0.0.1:0", "--local-filesystem-root", os.path.join(root, "Tests/Images"),
     "--cache-dir", cache, "--log-level", "notice"],
    stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
)
port = None
seen = ""
try:
    # The server says where it listens at notice level (no access lines at that level).
    while port is None:
        line = server.stderr.readline()
        if not line:
            sys.exit(f"the server stopped: {seen}")
        seen += line
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if match:
            port = int(match.group(1))

    def switches():
        total = 0
        tasks = os.listdir(f"/proc/{server.pid}/task")
        for task in tasks:
            try:
                with open(f"/proc/{server.pid}/task/{task}/status") as status:
                    for line in status:
                        if line.startswith("voluntary_ctxt_switches"):
                            total += int(line.split()[1])
            except FileNotFoundError:
                pass
        return total, len(tasks)

    connection = http.client.HTTPConnection("127.0.0.1", port)

    def get(path):
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            sys.exit(f"{path}: {response.status}")

    source = "local:///photos/rocket.jpg"
    get(f"/unsafe/rs:fill:300:200/plain/{source}")  # the source in memory, the pools started
    for name, path in [
        ("uncached (a new result of a source in memory)", lambda i: f"/unsafe/rs:fill:300:200/cb:{i}/plain/{source}"),
        ("cached (a memory hit)", lambda i: f"/unsafe/rs:fill:300:200/plain/{source}"),
    ]:
        for i in range(20):  # warm: the threads this kind of request wakes exist
            get(path(10_000_000 + i) if "uncached" in name else path(0))
        time.sleep(0.5)
        before, threads = switches()
        started = time.monotonic()
        for i in range(count):
            get(path(i))
        elapsed = time.monotonic() - started
        after, _ = switches()
        print(f"{name}: {(after - before) / count:.1f} voluntary context switches a request ({count} requests, {threads} threads, {elapsed / count * 1000:.2f} ms a request)")
finally:
    server.terminate()
    server.wait()
    subprocess.run(["rm", "-rf", cache])
