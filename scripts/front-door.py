#!/usr/bin/env python3
"""The front door at full scale: abusive clients against `webimage serve` with its default limits.

    python3 scripts/front-door.py [--webimage .build/release/webimage] [--idle 5000] [--slow 1000] [CASE...]

Starts `webimage serve` on 127.0.0.1 (an ephemeral port, Tests/Images as the local root, a fresh
cache folder) with the default MAX_CLIENTS (2048), READ_REQUEST_TIMEOUT, WRITE_RESPONSE_TIMEOUT
and KEEP_ALIVE_TIMEOUT (10 s), then runs each case (all by default: slowloris, idle, heads,
pipeline, noread, leave, smuggle) on loopback. Meanwhile a well-behaved client asks /health
and a cached thumbnail every 20 ms on a connection of its own. For each case it prints one
line: connections held at most by the server (its /proc/PID/fd sockets), probe answers and the
slowest, the server's resident memory (peak over idle), the time to cut the abusers off, and
the server's descriptors after against idle. AbusiveClientTests runs the same cases in CI with
short limits; this is the scale and the defaults, for docs/reliability.md ("The front door").
Needs `ulimit -n` above twice --idle (the clients are in this process).
"""

import argparse
import asyncio
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHED = "/unsafe/rs:fit:64:64/plain/local:///photos/rocket.jpg@jpg"
LARGE = "/unsafe/rs:fit:4200:4200/plain/local:///sdwebimage/TestImageLarge.jpg@png"


def request(path, extra=""):
    return f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{extra}\r\n".encode()


class Server:
    def __init__(self, webimage):
        self.cache = tempfile.mkdtemp(prefix="webimage-front-door-")
        self.process = subprocess.Popen(
            [webimage, "serve", "--bind", "127.0.0.1:0", "--local-filesystem-root", os.path.join(ROOT, "Tests/Images"),
             "--cache-dir", self.cache],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in self.process.stdout:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        else:
            sys.exit("webimage serve did not start")
        # The rest of its log is drained, so that it never blocks on a full pipe.
        self.drain = asyncio.get_event_loop().run_in_executor(None, lambda: [None for _ in self.process.stdout])

    def status(self, field):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field):
                    return int(line.split()[1]) * 1024
        return 0

    def reset_peak(self):
        with open(f"/proc/{self.process.pid}/clear_refs", "w") as refs:
            refs.write("5")

    def descriptors(self):
        return len(os.listdir(f"/proc/{self.process.pid}/fd"))

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=60)
        shutil.rmtree(self.cache, ignore_errors=True)


async def read_response(reader):
    """Status, headers and body length of one response; None at the end."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {line.split(":", 1)[0].lower(): line.split(":", 1)[1].strip() for line in lines[1:] if ":" in line}
    length = int(headers.get("content-length", "0"))
    try:
        await reader.readexactly(length)
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    return status, headers


async def until_end(reader):
    """Bytes read until the server closes (EOF or a reset)."""
    count = 0
    try:
        while chunk := await reader.read(65536):
            count += len(chunk)
    except ConnectionError:
        pass
    return count


class Probe:
    """/health and the cached thumbnail in turn, every 20 ms, on one kept-alive connection."""

    async def start(self, port):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", port)
        self.writer.write(request(CACHED))
        assert (await read_response(self.reader))[0] == 200
        self.answered, self.slowest, self.failures, self.running = 0, 0.0, [], True
        self.task = asyncio.create_task(self.run())

    async def run(self):
        while self.running:
            for path in ("/health", CACHED):
                sent = time.monotonic()
                self.writer.write(request(path))
                response = await read_response(self.reader)
                if response is None or response[0] != 200:
                    self.failures.append(f"{path}: {response}")
                    self.running = False
                    return
                self.answered += 1
                self.slowest = max(self.slowest, time.monotonic() - sent)
            await asyncio.sleep(0.02)

    async def stop(self):
        self.running = False
        await self.task
        self.writer.close()


class Sampler:
    """The server's socket count, sampled every 100 ms: the most held at once."""

    def __init__(self, server):
        self.server, self.most, self.running = server, 0, True
        self.task = asyncio.create_task(self.run())

    async def run(self):
        while self.running:
            self.most = max(self.most, self.server.descriptors())
            await asyncio.sleep(0.1)

    async def stop(self):
        self.running = False
        await self.task


async def slowloris(port, args):
    """Heads a byte a second, and connections that say nothing: READ_REQUEST_TIMEOUT."""
    async def one(index):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        opened = time.monotonic()

        async def trickle():
            for byte in request(CACHED)[:-4] + b"X-Slow: " + b"a" * 100:
                writer.write(bytes([byte]))
                await asyncio.sleep(1)
        task = asyncio.create_task(trickle()) if index % 5 else None
        await until_end(reader)
        if task:
            task.cancel()
        writer.close()
        return time.monotonic() - opened
    return await asyncio.gather(*(one(index) for index in range(args.slow)))


async def idle(port, args):
    """One request each, then held idle: KEEP_ALIVE_TIMEOUT; past MAX_CLIENTS, waiting. At most
    100 connect at once (more would overflow the listen backlog, which resets them)."""
    opening = asyncio.Semaphore(100)

    async def one():
        async with opening:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(request("/nothing-here"))
            assert (await read_response(reader))[0] == 404
        answered = time.monotonic()
        await until_end(reader)
        writer.close()
        return time.monotonic() - answered
    return await asyncio.gather(*(one() for _ in range(args.idle)))


async def heads(port, args):
    """A 1 MB request line, 100,000 header fields, a 1 MB field: 431 and closed."""
    cases = [b"GET /health?" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: x\r\n\r\n",
             b"GET /health HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-%d: a\r\n" % i for i in range(100_000)) + b"\r\n",
             b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"]
    times = []
    for head in cases:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        sent = time.monotonic()
        writer.write(head)
        try:
            await writer.drain()
        except ConnectionError:
            pass
        await until_end(reader)
        times.append(time.monotonic() - sent)
        writer.close()
    return times


async def pipeline(port, args):
    """10,000 requests on one connection, answered in order."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    count = 10_000
    sent = time.monotonic()
    writer.write(b"".join(request(CACHED, f"X-Request-ID: p{index}\r\n") for index in range(count)))
    for index in range(count):
        status, headers = await read_response(reader)
        assert status == 200 and headers.get("x-request-id") == f"p{index}", (index, status, headers)
    writer.close()
    return [time.monotonic() - sent]


async def noread(port, args):
    """A 10 MB result asked and never read (receive buffer 8 KB): WRITE_RESPONSE_TIMEOUT."""
    import socket

    async def one():
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        sock.setblocking(False)
        await asyncio.get_event_loop().sock_connect(sock, ("127.0.0.1", port))
        sock.sendall(request(LARGE))
        return sock
    idle_descriptors = args.server.descriptors()
    sockets = [await one() for _ in range(args.noread)]
    sent = time.monotonic()
    # Not reading until the server has let go of them all (its descriptors back), at most the
    # limit and 5 s; then what is left to read is a part of the answer and the end.
    await asyncio.sleep(1)
    while args.server.descriptors() > idle_descriptors and time.monotonic() < sent + args.write_timeout + 5:
        await asyncio.sleep(0.05)
    cut = time.monotonic() - sent
    received = []
    for sock in sockets:
        reader, writer = await asyncio.open_connection(sock=sock)
        received.append(await until_end(reader))
        writer.close()
    assert all(count < 9 << 20 for count in received), received
    return [cut] * len(sockets)


async def leave(port, args):
    """Hundreds that ask for the 10 MB result and go after its first bytes."""
    async def one():
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(request(LARGE))
        await reader.read(65536)
        writer.transport.abort()
    started = time.monotonic()
    await asyncio.gather(*(one() for _ in range(args.leave)))
    return [time.monotonic() - started]


async def smuggle(port, args):
    """Content-Length and Transfer-Encoding: chunked on one GET: 400, nothing after answered."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    inner = request("/health")
    writer.write(b"GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % (5 + len(inner)) + inner)
    answer = b""
    try:
        while chunk := await reader.read(65536):
            answer += chunk
    except ConnectionError:
        pass
    assert answer.startswith(b"HTTP/1.1 400") and answer.count(b"HTTP/1.1 ") == 1, answer
    return [0.0]


CASES = {"slowloris": slowloris, "idle": idle, "heads": heads, "pipeline": pipeline, "noread": noread, "leave": leave,
         "smuggle": smuggle}


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--webimage", default=next(
        (path for path in (os.path.join(ROOT, ".build/release/webimage"), os.path.join(ROOT, ".build/debug/webimage"))
         if os.path.exists(path)), None))
    parser.add_argument("--idle", type=int, default=5000)
    parser.add_argument("--slow", type=int, default=1000)
    parser.add_argument("--noread", type=int, default=20)
    parser.add_argument("--leave", type=int, default=200)
    parser.add_argument("--write-timeout", type=float, default=10)
    parser.add_argument("cases", nargs="*", default=list(CASES))
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2 * args.idle + 1000)), hard))
    server = Server(args.webimage)
    args.server = server
    print(f"webimage serve ({args.webimage}) on port {server.port}")
    try:
        # Both results made and cached before anything is measured.
        for path in (CACHED, LARGE):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(request(path))
            assert (await read_response(reader))[0] == 200
            writer.close()
        for name in args.cases:
            probe = Probe()
            await probe.start(server.port)
            idle_descriptors = server.descriptors()
            resident = server.status("VmRSS:")
            server.reset_peak()
            sampler = Sampler(server)
            started = time.monotonic()
            times = await CASES[name](server.port, args)
            elapsed = time.monotonic() - started
            await sampler.stop()
            # The server sees a client's own close a moment after it.
            settle = time.monotonic() + 5
            while server.descriptors() > idle_descriptors and time.monotonic() < settle:
                await asyncio.sleep(0.05)
            after = server.descriptors()
            await probe.stop()
            await asyncio.sleep(0.2)
            peak = server.status("VmHWM:")
            print(f"{name}: {len(times)} abusers, cut after {min(times):.2f}-{max(times):.2f} s; "
                  f"server descriptors most {sampler.most}, idle {idle_descriptors}, after {after}; "
                  f"{probe.answered} probe answers, slowest {probe.slowest * 1000:.1f} ms, failures {probe.failures}; "
                  f"memory {resident >> 20} MB idle, peak +{(peak - resident) >> 20} MB; {elapsed:.1f} s", flush=True)
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(main())
