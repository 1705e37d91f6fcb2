#!/usr/bin/env python3
"""Runs each case of a folder that bombs.py wrote, and reports wall time, CPU time, peak
resident memory and how it ended, against its bound (docs/reliability.md, "The bombs").

    python3 scripts/decode-bombs/run.py FOLDER [--webimage BIN]... [--serve] [CASE|CLASS ...]

Without --serve: `BIN` (default .build/release/webimage) runs each case's `webimage` command,
one process a case (CPU time and peak of the process and its child `webimage-render`, from
wait4). More than one --webimage: each case through each build, one after the other (the
measurements' before and after). With --serve: one `BIN serve` with its defaults on
127.0.0.1, the folder as its local root, each case asked for by its imgproxy URL (CPU time and
peak of the server process across the request over what was resident before it, from /proc).

Wall times are judged less what the machine's load took: the time the process's threads (and
its children's) waited, runnable, for a processor, sampled every 5 ms from
/proc/PID/task/TID/schedstat while it runs (on an idle machine, nothing). Each line prints the
wall time, that wait, and the CPU time.

Exit status 0 when every case ended as it must within its bounds, 1 otherwise.
"""
import argparse
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
BUDGETS = {'thumbnail': 2.0, 'full': 3.0, 'animation': 5.0}
SERVER_TIMEOUT = 10.0  # `webimage serve`'s default TIMEOUT


def read_cases(folder, wanted):
    cases = []
    with open(os.path.join(folder, 'cases.tsv')) as file:
        for line in file:
            name, kind, path, arguments, imgproxy, end, wall, peak, statuses, server_peak = line.rstrip('\n').split('\t')
            if wanted and name not in wanted and kind not in wanted and name.split('-')[0] not in wanted:
                continue
            cases.append(dict(name=name, kind=kind, file=path, arguments=arguments, imgproxy=imgproxy, end=end,
                              wall=float(wall), peak=int(peak), statuses={int(s) for s in statuses.split('/')},
                              server_peak=int(server_peak)))
    return cases


def wall_bound(case):
    """The wall time a case may take: its budget plus the margin, or its own bound."""
    end = case['end']
    if end.startswith(('budget:', 'within:')):
        return BUDGETS[end.split(':')[1]] + case['wall']
    return case['wall']


class RunQueueWait:
    """The time the threads of a process and of its children (those started later included)
    spend runnable but waiting for a processor, sampled every 5 ms in a thread of this script
    from the start to `stop()`: what a loaded machine adds to their wall time. Threads waiting
    at once add up, so on a loaded machine the sum can pass what the wall time lost (the
    bound is then looser, never tighter)."""

    def __init__(self, pid, just_started=False):
        self.pid = pid
        self.latest = {}
        self.sample(pid)
        self.first = {} if just_started else dict(self.latest)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def sample(self, pid):
        try:
            threads = os.listdir(f'/proc/{pid}/task')
        except OSError:
            return
        for thread in threads:
            folder = f'/proc/{pid}/task/{thread}'
            try:
                with open(folder + '/schedstat') as file:
                    self.latest[f'{pid}/{thread}'] = int(file.read().split()[1])
                with open(folder + '/children') as file:
                    children = file.read().split()
            except (OSError, IndexError, ValueError):
                continue
            for child in children:
                self.sample(child)

    def run(self):
        while not self.stopping.wait(0.005):
            self.sample(self.pid)

    def stop(self):
        """Seconds waited since the start."""
        self.stopping.set()
        self.thread.join()
        return sum(value - self.first.get(key, 0) for key, value in self.latest.items()) / 1e9


def verdict(case, status, message, seconds, peak_mb):
    """'ok', or what is wrong; `seconds` is the wall time less the process's runqueue wait."""
    end = case['end']
    problems = []
    if end == 'decodes':
        if status != 0:
            problems.append('did not decode')
    elif end.startswith('within:'):
        if status != 0 and 'budget' not in message:
            problems.append('neither decoded nor stopped by the budget')
    else:
        if status == 0:
            problems.append('decoded')
        elif end.startswith('budget') and 'budget' not in message:
            problems.append('not stopped by the budget')
        elif end == 'encode-limit' and 'encode limit' not in message:
            problems.append('not the encode limit')
        elif end == 'refused' and ('budget' in message or 'encode limit' in message):
            problems.append('not refused before decoding')
    if seconds > wall_bound(case):
        problems.append(f'over {wall_bound(case):.1f} s')
    if peak_mb > case['peak']:
        problems.append(f'over {case["peak"]} MB')
    return ', '.join(problems) or 'ok'


def run_cli(binary, case, folder, cpu_limit, timeout):
    """(exit status, last line of output, wall, runqueue wait, CPU, peak MB) of one run of the
    case's command."""
    output = os.path.join(tempfile.gettempdir(), f'webimage-bomb-{os.getpid()}-{case["name"]}')
    arguments = case['arguments'].replace('{in}', case['file']).replace('{out}', output).split()

    def limit():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit))
    with tempfile.TemporaryFile() as text:
        started = time.monotonic()
        process = subprocess.Popen([binary, *arguments], cwd=folder, stdout=text, stderr=text, preexec_fn=limit)
        waits = RunQueueWait(process.pid, just_started=True)
        timer = threading.Timer(timeout, process.kill)
        timer.start()
        # wait4: this process's own CPU time and peak (with its waited-for child's).
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - started
        waited = waits.stop()
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        text.seek(0)
        lines = text.read().decode(errors='replace').strip().splitlines()
    for leftover in (output + suffix for suffix in ('.jpg', '.png', '.gif', '.webp')):
        if os.path.exists(leftover):
            os.remove(leftover)
    return process.returncode, (lines or [''])[-1], wall, waited, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def cli(binaries, cases, folder, cpu_limit, timeout):
    print(f'load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; wall times judged less the runqueue wait', flush=True)
    failures = 0
    for case in cases:
        for binary in binaries:
            status, message, wall, waited, cpu, peak_mb = run_cli(binary, case, folder, cpu_limit, timeout)
            result = verdict(case, status, message, wall - waited, peak_mb)
            failures += result != 'ok'
            label = case['name'] + (f' [{binary}]' if len(binaries) > 1 else '')
            print(f'{label:<28} {case["kind"]:<15} wall {wall:6.2f} s  wait {waited:5.2f} s  cpu {cpu:6.2f} s  peak {peak_mb:5d} MB  '
                  f'exit {status:<3} {case["end"]:<19} {result:<12} | {message[-110:]}', flush=True)
    return failures


def proc_cpu(pid):
    with open(f'/proc/{pid}/stat') as file:
        fields = file.read().rsplit(')', 1)[1].split()
    ticks = os.sysconf('SC_CLK_TCK')
    return (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / ticks


def proc_status_mb(pid, field):
    """A field of /proc/PID/status (VmRSS: resident now, VmHWM: the peak), in MB."""
    with open(f'/proc/{pid}/status') as file:
        for line in file:
            if line.startswith(field + ':'):
                return int(line.split()[1]) // 1024
    return 0


def reset_peak(pid):
    with open(f'/proc/{pid}/clear_refs', 'w') as file:
        file.write('5')


def free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


def get(url, timeout):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return response.status, ''
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors='replace').strip()
    except OSError as error:
        return 0, str(error)


def serve(binary, cases, folder, timeout):
    port = free_port()
    cache = tempfile.mkdtemp(prefix='webimage-bombs-cache-')
    log = open(os.path.join(cache, 'server.log'), 'w')
    server = subprocess.Popen([binary, 'serve', '--bind', f'127.0.0.1:{port}', '--local-filesystem-root', folder,
                               '--cache-dir', cache], stdout=log, stderr=log)
    base = f'http://127.0.0.1:{port}'
    failures = 0
    try:
        for _ in range(600):
            if get(base + '/health', 1)[0] == 200:
                break
            if server.poll() is not None:
                sys.exit(f'the server ended: see {log.name}')
            time.sleep(0.05)
        print(f'server {binary} pid {server.pid}, {proc_status_mb(server.pid, "VmRSS")} MB resident; load average '
              f'{os.getloadavg()[0]:.1f}; budgets judged on the wall time less the server\'s runqueue wait; peaks over the '
              'resident memory before each request', flush=True)
        for case in cases:
            url = f'{base}/unsafe/' + case['imgproxy'].replace('{url}', 'local:///' + case['file'])
            before_mb = proc_status_mb(server.pid, "VmRSS")
            reset_peak(server.pid)
            cpu_before = proc_cpu(server.pid)
            waits = RunQueueWait(server.pid)
            started = time.monotonic()
            status, body = get(url, timeout)
            wall = time.monotonic() - started
            waited = waits.stop()
            cpu = proc_cpu(server.pid) - cpu_before
            peak_mb = proc_status_mb(server.pid, "VmHWM")
            health, _ = get(base + '/health', 5)
            problems = [] if status in case['statuses'] else [f'status {status}']
            if health != 200:
                problems.append(f'health {health}')
            # The request's bound is the server's TIMEOUT (10 s) and a second for the exchange;
            # a budget's stop is also judged as in the CLI (less the server's runqueue wait).
            if wall > SERVER_TIMEOUT + 1:
                problems.append(f'over {SERVER_TIMEOUT + 1:.0f} s')
            if case['end'].startswith(('budget:', 'within:')) and wall - waited > wall_bound(case):
                problems.append(f'over {wall_bound(case):.1f} s')
            if peak_mb - before_mb > case['server_peak']:
                problems.append(f'over {case["server_peak"]} MB')
            result = ', '.join(problems) or 'ok'
            failures += result != 'ok'
            print(f'{case["name"]:<28} {case["kind"]:<15} wall {wall:6.2f} s  wait {waited:5.2f} s  cpu {cpu:6.2f} s  peak {peak_mb - before_mb:+5d} MB  '
                  f'{status:<4} {"/".join(map(str, sorted(case["statuses"]))):<12} {result:<12} | {body[-100:]}', flush=True)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(cache, ignore_errors=True)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('folder')
    parser.add_argument('cases', nargs='*', help='cases, bombs or classes (default: all)')
    parser.add_argument('--webimage', action='append', help='the build(s) to run (default: .build/release/webimage)')
    parser.add_argument('--serve', action='store_true', help='through `webimage serve` over HTTP')
    parser.add_argument('--cpu', type=int, default=60, help='CPU seconds a CLI run may take (ulimit -t)')
    parser.add_argument('--timeout', type=float, default=300, help='wall seconds a run may take')
    options = parser.parse_intermixed_args()
    binaries = [os.path.abspath(b) for b in (options.webimage or [os.path.join(REPO, '.build/release/webimage')])]
    cases = read_cases(options.folder, set(options.cases))
    folder = os.path.abspath(options.folder)
    if options.serve:
        failures = sum(serve(binary, cases, folder, options.timeout) for binary in binaries)
    else:
        failures = cli(binaries, cases, folder, options.cpu, options.timeout)
    print(f'{len(cases)} cases, {failures} outside their bounds')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
