import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImage
import WebImageTestServer
import WebImageTestSupport

/// Issue 40: the server lives in a host's process beside the host's own systems. `ImageServer.run`
/// bootstraps none of them: with `PROMETHEUS_BIND` its counters go to a registry of its own,
/// served at `/metrics`, and a host that bootstrapped `MetricsSystem` itself (a second bootstrap
/// traps) keeps its own.
@Suite(.offThePool) struct HostObservabilityTests {
    /// Two servers run one after the other in this process, each with `PROMETHEUS_BIND`: each
    /// starts (the `MetricsSystem.bootstrap` `run` once made would trap the second time), says it
    /// listens only once `/metrics` does, and serves there its own requests, its downloads and its
    /// cache lookups, not the other's; each ends when its task is cancelled.
    @Test func twoServersInOneProcessEachServeTheirOwnMetrics() async throws {
        try await withOrigin { origin in
            for round in 1...2 {
                let metricsPort = try FreePort.next()
                let configuration = ImageServerConfiguration.fetchingFromLoopback { configuration in
                    configuration.prometheusBind = ServerAddress(host: "127.0.0.1", port: metricsPort)
                }
                defer { try? FileManager.default.removeItem(atPath: configuration.cacheDirectory) }
                let (ports, listening) = AsyncStream<Int>.makeStream()
                let running = Task {
                    try await ImageServer.run(configuration: configuration, parser: try configuration.makeParser(), logger: Logger(label: "host-\(round)")) {
                        listening.yield($0)
                    }
                }
                var iterator = ports.makeAsyncIterator()
                let port = try #require(await iterator.next())
                // Asked for at once: the server said it listens only when /metrics does.
                let before = String(decoding: try await ServerUnderTest.get("/metrics", port: metricsPort).body, as: UTF8.self)
                #expect(Self.value(of: "webimage_downloads_total{result=\"success\"}", in: before) ?? 0 == 0, "round \(round)")
                let source = origin.url("/images/photos/rocket.jpg").absoluteString
                for _ in 0..<2 {
                    let reply = try await ServerUnderTest.get("/unsafe/rs:fit:60:60/plain/\(source)", port: port)
                    #expect(reply.status == 200)
                }
                let metrics = String(decoding: try await ServerUnderTest.get("/metrics", port: metricsPort).body, as: UTF8.self)
                // One download for the two requests, counted here and nowhere else.
                #expect(Self.value(of: "webimage_downloads_total{result=\"success\"}", in: metrics) == 1, "round \(round): \(metrics)")
                #expect(metrics.contains("webimage_server_requests_in_flight"), "round \(round)")
                #expect(metrics.contains("webimage_cache_lookups_total"), "round \(round)")
                running.cancel()
                try await running.value
            }
        }
    }

    /// The value of the sample line that starts with `name` (its labels included).
    static func value(of name: String, in metrics: String) -> Double? {
        metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
    }
}

/// Issue 40: the server's threads (the disk stores', the health check's) belong to the
/// application's lifecycle: the server is a service of it, and at its stop the server awaits
/// its disk writes and ends them.
@Suite(.offThePool) struct ServerLifecycleTests {
    @Test func theServersThreadsEndWithTheApplicationAfterItsWrites() async throws {
        try await withOrigin { origin in
            let configuration = ImageServerConfiguration.fetchingFromLoopback()
            defer { try? FileManager.default.removeItem(atPath: configuration.cacheDirectory) }
            let server = try ImageServer(configuration: configuration)
            let router = Router(context: ImageServerContext.self)
            server.addRoutes(to: router)
            let (ports, listening) = AsyncStream<Int>.makeStream()
            let application = Application(
                router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)), services: [server],
                onServerRunning: { listening.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "lifecycle-test")
            )
            let group = ServiceGroup(configuration: .init(services: [application], logger: Logger(label: "lifecycle-test")))
            let running = Task { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let reply = try await ServerUnderTest.get("/unsafe/rs:fit:50:50/plain/\(origin.url("/images/photos/rocket.jpg"))", port: port)
            #expect(reply.status == 200)
            #expect(try await server.diskThreads.run { 1 } == 1)
            #expect(await server.healthCheck.passes())
            await group.triggerGracefulShutdown()
            try await running.value
            // The result was written before the threads ended (a write still queued would have
            // been cancelled with them).
            let files = FileManager.default.enumerator(atPath: configuration.cacheDirectory)?.compactMap { $0 as? String }
                .filter { !$0.hasPrefix(".") && !$0.contains("/.") } ?? []
            let entries = files.filter { path in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: configuration.cacheDirectory + "/" + path, isDirectory: &isFolder) && !isFolder.boolValue
            }
            #expect(entries.filter { $0.hasPrefix("results/") }.count == 1, "\(files)")
            await #expect(throws: (any Error).self) { try await server.diskThreads.run { 1 } }
            #expect(await server.healthCheck.passes() == false)
        }
    }
}

/// Issue 40: the disk writes behind the responses are bounded: past `maxPendingWrites` waiting,
/// a write is dropped (and counted), not queued.
@Suite(.offThePool) struct EntryStoreWriteBoundTests {
    @Test func writesPastTheBoundAreDroppedNotQueued() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-entry-bound-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let threads = DiskThreads(count: 1)
        let store = EntryStore<[String: String]>(namespace: "bound", directory: folder, config: ImageCacheConfig(), threads: threads, maxPendingWrites: 3)
        // The one disk thread held: the writes wait behind it.
        let (started, gate) = (TestGate(), TestGate())
        let held = Task { try await threads.run { started.open(); gate.block() } }
        await started.wait()
        for index in 0..<5 {
            store.storeBehind(Data("entry \(index)".utf8), metadata: ["n": "\(index)"], forKey: "k\(index)", logger: Logger(label: "bound-test"))
        }
        #expect(store.droppedWrites == 2)
        gate.open()
        try await held.value
        await store.finishWrites()
        var stored: [Bool] = []
        for index in 0..<5 { stored.append(await store.entry(forKey: "k\(index)") != nil) }
        #expect(stored == [true, true, true, false, false])
        await threads.shutdown()
    }
}
