-- wrk script of scripts/soak.sh: a mix of requests, and their statuses counted by kind.
--   wrk -tN -cN ... -s soak.lua URL -- ORIGIN [SKIP]
-- ORIGIN is the loopback nginx origin, percent-escaped (http%3A%2F%2F127.0.0.1%3APORT); SKIP,
-- kinds left out of the mix, comma-separated. Each
-- request picks a kind by weight, then one of its paths; "{n}" in a path becomes a number unique
-- to the request (a cache buster, or a new source URL). wrk must run one connection a thread
-- (-t equal to -c): a thread then has one request in flight, so the response that follows is
-- the answer to the kind it last asked for. done() prints one line a kind and status:
--   STATUS kind=K expected=E status=S count=C
-- one line of latency over all requests:
--   LATENCY p50_ms=X p99_ms=Y max_ms=Z
-- and one line of socket errors:
--   ERRORS connect=C read=R write=W timeout=T requests=N seconds=S

local function escaped(path) return (path:gsub(":", "%%3A"):gsub("/", "%%2F"):gsub("%?", "%%3F"):gsub("=", "%%3D")) end

-- name, expected status, weight, paths (built in init, when the origin is known)
local function mix(origin)
    local http = function(file) return origin .. "%2F" .. file end
    local localFile = function(file) return escaped("local:///" .. file) end
    local images = { "rocket.jpg", "astronaut.png", "TestImage.gif" }
    local sizes = { "rs:fill:300:200", "rs:fit:640:480", "rs:fill:100:100", "rs:fit:1024:0", "w:48" }
    local function each(sources, template)
        local paths = {}
        for _, source in ipairs(sources) do
            for _, size in ipairs(sizes) do
                paths[#paths + 1] = (template:gsub("SIZE", size):gsub("SOURCE", function() return source end))
            end
        end
        return paths
    end
    local both = {}
    for _, image in ipairs(images) do
        both[#both + 1] = http(image)
        both[#both + 1] = localFile(image)
    end
    local remote = {}
    for _, image in ipairs(images) do remote[#remote + 1] = http(image) end
    return {
        -- The same URLs every time: results from the memory cache.
        { "hit", 200, 30, {
            "/unsafe/rs:fill:300:200/plain/" .. http("rocket.jpg"),
            "/unsafe/rs:fit:150:150/plain/" .. localFile("astronaut.png"),
            "/unsafe/rs:fill:100:100/plain/" .. http("TestImage.gif"),
            "/unsafe/rs:fill:300:200/plain/" .. localFile("TestImageLarge.jpg"),
        } },
        -- A new result of a source the server has: made, stored on disk and in memory.
        { "result-miss", 200, 20, each(both, "/unsafe/SIZE/cb:{n}/plain/SOURCE") },
        -- A new source URL: fetched from the origin, stored in the source cache.
        { "source-miss", 200, 10, each(remote, "/unsafe/SIZE/cb:{n}/plain/SOURCE%3Fr%3D{n}") },
        -- No resizing: the whole image decoded and encoded again.
        { "full-size", 200, 5, (function()
            local paths = {}
            for _, source in ipairs(both) do paths[#paths + 1] = "/unsafe/cb:{n}/plain/" .. source end
            return paths
        end)() },
        -- TestImageLarge.jpg (5250x3450): thumbnails, shrunk on load, and full size.
        { "large", 200, 2.5, {
            "/unsafe/rs:fill:300:200/cb:{n}/plain/" .. http("TestImageLarge.jpg"),
            "/unsafe/rs:fit:800:800/cb:{n}/plain/" .. localFile("TestImageLarge.jpg"),
            "/unsafe/rs:fill:100:100/cb:{n}/plain/" .. http("TestImageLarge.jpg") .. "%3Fr%3D{n}",
            "/unsafe/rs:fit:1920:1080/cb:{n}/plain/" .. localFile("TestImageLarge.jpg"),
            "/unsafe/rs:fill:300:200/cb:{n}/plain/" .. localFile("TestImageLarge.jpg"),
        } },
        { "large-full-size", 200, 0.5, { "/unsafe/cb:{n}/plain/" .. localFile("TestImageLarge.jpg") } },
        -- Errors the mix asks for.
        { "missing-http", 404, 3, { "/unsafe/rs:fill:300:200/plain/" .. http("missing-{n}.jpg") } },
        { "missing-local", 404, 2, { "/unsafe/rs:fill:300:200/plain/" .. localFile("missing-{n}.jpg") } },
        { "corrupt-http", 422, 2, { "/unsafe/rs:fill:300:200/cb:{n}/plain/" .. http("corrupt.jpg") } },
        { "corrupt-local", 422, 2, { "/unsafe/rs:fill:300:200/cb:{n}/plain/" .. localFile("corrupt.png") } },
        -- The source guard refuses a link-local address (cloud metadata).
        { "refused-guard", 404, 2, { "/unsafe/rs:fill:300:200/plain/" .. escaped("http://169.254.169.254/latest/{n}.jpg") } },
        -- A host not in ALLOWED_SOURCES.
        { "refused-not-allowed", 404, 2, { "/unsafe/rs:fill:300:200/plain/" .. escaped("http://example.com/{n}.jpg") } },
        { "bad-option", 400, 1, { "/unsafe/rs:fill:wide:200/plain/" .. http("rocket.jpg") } },
    }
end

local threads = {}

function setup(thread)
    thread:set("thread_id", #threads)
    threads[#threads + 1] = thread
end

function init(args)
    kinds = {}
    local skipped = "," .. (args[2] or "") .. ","
    for _, kind in ipairs(mix(args[1])) do
        if not skipped:find("," .. kind[1] .. ",", 1, true) then kinds[#kinds + 1] = kind end
    end
    total = 0
    for _, kind in ipairs(kinds) do total = total + kind[3] end
    math.randomseed(1000 + thread_id)
    counter = 0
    last = nil
    counts = {}
end

function request()
    local pick = math.random() * total
    local kind = kinds[#kinds]
    for _, candidate in ipairs(kinds) do
        pick = pick - candidate[3]
        if pick < 0 then kind = candidate; break end
    end
    counter = counter + 1
    last = kind
    local path = kind[4][math.random(#kind[4])]
    return wrk.format("GET", (path:gsub("{n}", thread_id .. "x" .. counter)))
end

function response(status, headers, body)
    if last == nil then return end
    local key = last[1] .. " " .. last[2] .. " " .. status
    counts[key] = (counts[key] or 0) + 1
    last = nil
end

function done(summary, latency, requests)
    local all = {}
    for _, thread in ipairs(threads) do
        local counted = thread:get("counts")
        for key, count in pairs(counted) do all[key] = (all[key] or 0) + count end
    end
    local keys = {}
    for key in pairs(all) do keys[#keys + 1] = key end
    table.sort(keys)
    for _, key in ipairs(keys) do
        local kind, expected, status = key:match("^(%S+) (%d+) (%d+)$")
        io.write(string.format("STATUS kind=%s expected=%s status=%s count=%d\n", kind, expected, status, all[key]))
    end
    io.write(string.format("LATENCY p50_ms=%.1f p99_ms=%.1f max_ms=%.1f\n",
        latency:percentile(50) / 1e3, latency:percentile(99) / 1e3, latency.max / 1e3))
    local e = summary.errors
    io.write(string.format("ERRORS connect=%d read=%d write=%d timeout=%d requests=%d seconds=%.1f\n",
        e.connect, e.read, e.write, e.timeout, summary.requests, summary.duration / 1e6))
end
