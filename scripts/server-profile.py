#!/usr/bin/env python3
"""Where a `webimage serve` process spends its CPU: reads `perf script` output (a `perf record -g`
of the process) on stdin and prints the share of samples of each part of a request, and the
CPU milliseconds a request when given the number of requests served while recording.

    perf script -i perf.data | python3 scripts/server-profile.py [REQUESTS] [FREQUENCY]

A sample goes to the first part whose name appears in its stack, leaf first (C libraries built
without frame pointers give no callers, so a sample in them is placed by its library). The
parts are checked in the order below: a disk write made while processing counts as the disk
cache, a fetch's kernel time as the fetch.
"""
import collections
import re
import sys

# (part, substrings of a frame's symbol or library), checked in order.
PARTS = [
    ("image work: codecs, libvips, liborc, pixel kernels",
     ["libturbojpeg", "libjpeg", "libpng", "libspng", "libvips", "liborc", "libglib", "libgobject",
      "libwebp", "libheif", "libexif", "liblcms", "libz.so", "libimagequant", "libhwy", " wi_"]),
    ("disk cache: files, xattrs, fsync", ["8WebImage9DiskCache", "8WebImage9CacheFile", "ExtendedDataStore",
                                          "11SourceStore", "11ResultStore"]),
    ("image work: Swift side", ["15ProcessingSteps", "0B9Processor", "8WebImage14TurboJPEGCoder",
                                "8WebImage0B13CodersManager", "8WebImage0B0C", "8WebImage0B8Pipeline"]),
    ("source fetch: HTTP client", ["15AsyncHTTPClient", "8WebImage17DownloadOperation", "8WebImage13ImageDownloader",
                                   "8WebImage13DownloadQueue"]),
    ("access log", ["14WebImageServer0bC0C6record", "7Logging", "StreamLogHandler", "ImageServerLogHandler", "8LogClock",
                    "7LogText", "AccessLogMiddleware"]),
    ("metrics", ["10Prometheus", "11CoreMetrics", "13ServerMetrics"]),
    ("URL, options, cache key, entity tag", ["17ImgproxyURLParser", "17ProcessingOptions", "16OutputFormatPlan",
                                             "13OptionApplier", "9EntityTag", "9RequestID"]),
    ("timeout and client watch", ["11withTimeout", "17ClientGoneWaiters", "17ClientGoneHandler",
                                  "untilClientCloses", "withTaskCancellationHandler"]),
    ("HTTP serving: Hummingbird, NIO HTTP", ["15HummingbirdCore", "11Hummingbird", "8NIOHTTP1", "llhttp",
                                             "14WebImageServer6AnswerO"]),
]
KERNEL_PARTS = [
    ("kernel: network", ["tcp_", "sock_", "inet_", "__sys_sendto", "__sys_recvfrom", "sendmsg", "recvmsg", "readv",
                         "writev", "skb"]),
    ("kernel: files", ["openat", "rename", "unlink", "fsync", "setxattr", "getxattr", "ext4", "statx", "newfstatat",
                       "vfs_read", "vfs_write"]),
    ("kernel: scheduling, futex, epoll", ["futex", "schedule", "epoll", "finish_task_switch"]),
    ("kernel: memory (page faults, unmapping)", ["page_fault", "clear_page", "do_anonymous_page", "get_page_from_freelist",
                                                 "unmap_page_range", "zap_page_range", "madvise", "munmap", "folio"]),
]


def part_of(frames):
    """frames: (symbol, library) pairs, leaf first."""
    leaf_symbol, leaf_library = frames[0]
    text = " ".join(f" {symbol} {library}" for symbol, library in frames)
    for part, needles in PARTS:
        if any(needle in text for needle in needles):
            return part
    if leaf_library == "[kernel.kallsyms]":
        for part, needles in KERNEL_PARTS:
            if any(needle in text for needle in needles):
                return part
        return "kernel: other"
    if re.search(r"malloc|free|_int_|calloc|realloc|memalign", leaf_symbol):
        return "malloc and free (callers unknown)"
    if re.search(r"printf|_IO_|strchrnul", leaf_symbol):
        return "libc printf family (callers unknown)"
    if "NIO" in text:
        return "NIO event loops and thread pool, other"
    if "libdispatch" in text or "swift_task" in text or "libswift_Concurrency" in text:
        return "Swift concurrency and libdispatch"
    if "libswiftCore" in leaf_library or "libFoundation" in leaf_library:
        return "Swift runtime and Foundation (callers unknown)"
    return "other: " + leaf_library.rsplit("/", 1)[-1]


def samples(lines):
    frames = []
    for line in lines:
        if not line.strip():
            if frames:
                yield frames
            frames = []
        elif line[0] in " \t":
            match = re.match(r"\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
            if match:
                frames.append((match.group(1), match.group(2)))
        elif frames:
            yield frames
            frames = []
    if frames:
        yield frames


def main():
    requests = float(sys.argv[1]) if len(sys.argv) > 1 else 0
    frequency = float(sys.argv[2]) if len(sys.argv) > 2 else 999
    counts = collections.Counter(part_of(frames) for frames in samples(sys.stdin))
    total = sum(counts.values())
    if total == 0:
        print("no samples")
        return
    per_request = 1000 / frequency / requests if requests else 0
    print(f"{total} samples" + (f", {total * per_request:.2f} CPU ms a request ({requests:.0f} requests)" if requests else ""))
    for part, count in counts.most_common():
        print(f"  {100 * count / total:5.1f}%" + (f"  {count * per_request:5.2f} ms" if requests else "") + f"  {part}")


main()
