-- wrk script of scripts/server-benchmark.sh.
--   wrk ... -s server-benchmark.lua URL -- PATH [TOKEN]
-- PATH is requested on every request; each "{n}" in it becomes a number unique to the request
-- (TOKEN, the wrk thread and a counter), so a path with "{n}" in its cache buster misses every
-- cache. done() prints one line the shell script reads:
--   RESULT requests=N seconds=S p50_ms=X p99_ms=Y errors=E
-- where errors counts non-2xx/3xx statuses, connect, read, write errors and timeouts.

local threads = 0

function setup(thread)
    thread:set("thread_id", threads)
    threads = threads + 1
end

function init(args)
    path = args[1]
    token = args[2] or "0"
    counter = 0
    unique = path:find("{n}", 1, true) ~= nil
end

function request()
    if not unique then
        return wrk.format("GET", path)
    end
    counter = counter + 1
    local n = token .. "x" .. thread_id .. "x" .. counter
    return wrk.format("GET", (path:gsub("{n}", n)))
end

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("RESULT requests=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
        summary.requests, summary.duration / 1e6, latency:percentile(50) / 1e3, latency:percentile(99) / 1e3,
        e.status + e.connect + e.read + e.write + e.timeout))
end
