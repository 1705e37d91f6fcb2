#!/usr/bin/env python3
"""Reads the thread stacks pool-sample.sh took (one gdb `thread apply all bt` a file) and tells
what the Swift cooperative pool's threads were doing: a thread whose stack runs a job
(`swift_job_run`) is a pool thread; it is *blocked* when its top frames wait in the kernel
(read, write, poll, sleep, a lock or condition that is not the pool's own idle wait) and
*computing* otherwise. Each is named by its innermost frame of our code (Sources or Tests) and
by the outermost, the job that called it (a test's body, or a task of the library). Prints, most
seen first, how many samples found a pool thread there."""
import collections
import re
import subprocess
import sys

OURS = re.compile(r"\$s(8WebImage|14WebImageServer|11ImageEngine|13WebImageTests|19WebImageServerTests|18WebImageTestServer|8webimage)|\bwi_")
WAITS = ("read", "write", "__poll", "__ppoll", "poll", "select", "nanosleep", "clock_nanosleep", "usleep",
         "waitpid", "wait4", "futex_wait", "__futex_abstimed_wait", "pthread_cond_wait", "pthread_cond_timedwait",
         "g_cond_wait", "sem_wait", "__lll_lock_wait", "pthread_mutex_lock", "epoll_wait", "accept", "recv", "send",
         "fsync", "fdatasync", "open", "openat", "rename", "unlink", "stat", "fstat", "getxattr", "setxattr", "syscall")

def frames(stack):
    return re.findall(r"#\d+\s+(?:0x[0-9a-f]+ in )?(\S+)", stack)

def demangle(names):
    try:
        out = subprocess.run(["swift", "demangle", "--simplified"], input="\n".join(names), capture_output=True, text=True, check=True).stdout
        return out.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return names

def main(paths):
    seen = collections.Counter()
    samples = 0
    for path in paths:
        samples += 1
        for stack in re.split(r"\n(?=Thread \d+ )", open(path, errors="replace").read()):
            names = frames(stack)
            if "swift_job_run" not in names:
                continue
            job = names.index("swift_job_run")
            top = names[:min(job, 6)]
            blocked = any(name.lstrip("_").startswith(wait) or name.endswith(wait) for name in top[:3] for wait in WAITS)
            mine = [name for name in names[:job] if OURS.search(name)]
            inner, outer = (mine[0], mine[-1]) if mine else (top[0], "")
            side = "Tests" if "Tests" in outer else ("Sources" if mine else "none of ours")
            seen[("blocked" if blocked else "computing", side, inner, outer)] += 1
    keys = list(seen)
    readable = demangle([key[2] for key in keys] + [key[3] for key in keys])
    inner, outer = readable[:len(keys)], readable[len(keys):2 * len(keys)]
    print(f"{samples} samples; pool threads seen running a job, by what they were doing "
          "(the job's caller: Tests when a test's own code runs it):")
    for index in sorted(range(len(keys)), key=lambda i: -seen[keys[i]]):
        key = keys[index]
        caller = f"  <- {outer[index][:90]}" if outer[index] and outer[index] != inner[index] else ""
        print(f"{seen[key]:5}  {key[0]:9}  {key[1]:12}  {inner[index][:90]}{caller}")


if __name__ == "__main__":
    main(sys.argv[1:])
