// swift-tools-version: 6.1
import PackageDescription

/// scripts/fuzz.sh builds the Fuzz package with SWIFT_WEBIMAGE_FUZZ_BUILD set: this package's own
/// modules, and only they, are then built with libFuzzer's coverage and AddressSanitizer (and
/// `-enable-testing`, for the fuzz targets' `@testable import`); its dependencies are built plain,
/// which takes a third less time than instrumented.
let fuzzBuild = Context.environment["SWIFT_WEBIMAGE_FUZZ_BUILD"] != nil
let fuzzedSwift: [SwiftSetting] = fuzzBuild ? [.unsafeFlags(["-sanitize=fuzzer,address", "-enable-testing"])] : []
let fuzzedC: [CSetting] = fuzzBuild ? [.unsafeFlags(["-fsanitize=fuzzer-no-link,address"])] : []
/// scripts/tsan-check.sh builds with SWIFT_WEBIMAGE_TSAN_BUILD set: without swift-otel, whose
/// batch processors (1.6.0) do not compile under `-sanitize=thread` with Swift 6.3.1 ("sending
/// 'logger' risks causing data races", which the plain build does not find); `webimage serve`
/// then has no trace exporter, and the export tests are left out of that build.
let tsanBuild = Context.environment["SWIFT_WEBIMAGE_TSAN_BUILD"] != nil

let package = Package(
    name: "swift-webimage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .library(name: "WebImageServerCore", targets: ["WebImageServerCore"]),
        .library(name: "WebImageServer", targets: ["WebImageServer"]),
        .library(name: "WebImageVapor", targets: ["WebImageVapor"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // NIOHTTPTypes: the server's connection limits see HTTP parts (already in the graph through Hummingbird).
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // The image server: HTTP, configuration, signing, metrics, graceful shutdown.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // The second adapter: the same core mounted in a Vapor 4 application.
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Spans (the requests' work, `traceparent` to origins) on whatever tracer the host set up.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // `swift package generate-documentation --target WebImage` (the DocC catalog, built in CI).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ] + (tsanBuild ? [] : [
        // `webimage serve`'s exporter: OTLP over HTTP only (the gRPC trait would build grpc-swift).
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ]),
    targets: [
        // The C boundary, behind one Swift target (ImageEngine): libvips through pkg-config, and the C
        // that works beside it, a target per kind.
        .systemLibrary(
            name: "CLibvips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // Non-variadic entry points into libvips (Swift cannot call C variadic functions), and
        // the animated WebP saver over libwebp's WebPAnimEncoder (libwebp-dev, a libvips-dev
        // dependency): libvips 8.14's own leaks on a failed save. The colour encoding HEIF and
        // JPEG XL files declare, read with libheif (libheif-dev) and libjxl (libjxl-dev), which
        // libvips 8.14 drops or turns into an ICC profile. EXIF tags' names, titles and values
        // read with libexif (libexif-dev, a libvips-dev dependency), for `ImageInfo`.
        .target(
            name: "CVipsGlue", dependencies: ["CLibvips", "CBitmapKernels"], cSettings: fuzzedC,
            linkerSettings: [
                .linkedLibrary("webpmux"), .linkedLibrary("webp"), .linkedLibrary("heif"), .linkedLibrary("jxl"), .linkedLibrary("exif"),
            ]
        ),
        // Kernels over bitmaps in memory: resampling, orientation, round-corner coverage, and ICC
        // conversion through lcms2 (liblcms2-dev).
        .target(name: "CBitmapKernels", dependencies: ["CLibvips"], cSettings: fuzzedC, linkerSettings: [.linkedLibrary("lcms2"), .linkedLibrary("m")]),
        // The second engine, for small JPEGs: libjpeg-turbo's TurboJPEG API (libturbojpeg0-dev)
        // and our decoder of progressive JPEGs at 1/8 from their DC scans.
        .target(
            name: "CJPEGCodec",
            dependencies: ["CBitmapKernels"],
            cSettings: fuzzedC,
            linkerSettings: [.linkedLibrary("turbojpeg"), .linkedLibrary("jpeg")]
        ),
        // PNG readers: libpng's (libpng-dev), progressive and whole-file; ours for common whole
        // files, on libdeflate (libdeflate-dev, which libvips-dev brings); the metadata-bomb check (zlib).
        .target(
            name: "CPNGReaders",
            dependencies: ["CLibvips", "CBitmapKernels"],
            cSettings: fuzzedC,
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z"), .linkedLibrary("deflate")]
        ),
        // Face detection: OpenCV's Haar cascades (libopencv-objdetect-dev, -imgproc-dev, -core-dev;
        // the cascade files from opencv-data) in C++ behind a C API. Debian ships OpenCV's
        // pkg-config file only in libopencv-dev, which brings all of OpenCV (VTK, MPI, Java), so
        // the headers' folder is reached through a link in the package (SystemHeaders/opencv4 ->
        // /usr/include/opencv4): a header search path, where `-I` would be an unsafe flag that
        // a package depending on this one by version is refused.
        .target(
            name: "CFaceDetection",
            cxxSettings: [.headerSearchPath("../../SystemHeaders/opencv4")],
            linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]
        ),
        // sys/xattr.h (extended attributes, which Glibc leaves out), for the disk cache's extended data.
        .systemLibrary(name: "CXattr"),
        // The lock every target uses (`Locked`: ThreadSanitizer sees it), without libvips.
        .target(name: "WebImageSupport", swiftSettings: fuzzedSwift),
        // The engine: the only Swift target that imports C (libvips, TurboJPEG, libpng, lcms2,
        // xattr), with typed operations over them.
        .target(
            name: "ImageEngine",
            dependencies: [
                "WebImageSupport",
                "CLibvips",
                "CVipsGlue",
                "CBitmapKernels",
                "CJPEGCodec",
                "CPNGReaders",
                "CFaceDetection",
                "CXattr",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: fuzzedSwift
        ),
        .target(
            name: "WebImage",
            dependencies: [
                "ImageEngine",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                // ImageDownloader's HTTP client (HTTP/1.1 and HTTP/2, TLS through swift-nio-ssl).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The trace context sent on to origins (`ImageDownloaderConfig.propagatesTraceContext`).
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                // `ImageInfo`'s hashsums (MD5, SHA-1, SHA-256, SHA-512), BoringSSL's.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: fuzzedSwift
        ),
        // The image server's core: imgproxy's URLs answered in swift-http-types' terms, with no
        // web framework (the adapters below mount it), built only on WebImage's public API.
        .target(
            name: "WebImageServerCore",
            dependencies: [
                "WebImage",
                "WebImageSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                // NIOThreadPool: the caches' disk threads, the health check's.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Configuration", package: "swift-configuration"),
                // FilePath, which swift-configuration's file provider takes.
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
                // The shared result store's S3 calls (GET, PUT), signed with our own SigV4.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The server is a `Service`: its threads end at the host's shutdown.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: fuzzedSwift
        ),
        // The core on Hummingbird: `addRoutes(to:)`, and `webimage serve`'s application (its
        // connection limits, `/metrics`).
        .target(
            name: "WebImageServer",
            dependencies: [
                "WebImageServerCore",
                "WebImage",
                "WebImageSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                // HummingbirdCore: HTTP1Channel's configuration and MaximumAvailableConnections.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // NIOHTTP1: the decoder's error for a head past the header limits (answered 431).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: fuzzedSwift
        ),
        // The core on Vapor 4: `ImageRoutes`, a route collection, and `ImageServerLifecycle`.
        .target(
            name: "WebImageVapor",
            dependencies: [
                "WebImageServerCore",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // Vapor's HTTPHeaders to swift-http-types' HTTPFields and back.
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            swiftSettings: fuzzedSwift
        ),
        // A real HTTP(S) server on 127.0.0.1 that serves Tests/Images and injects faults, for the
        // tests and the benchmark.
        .target(
            name: "WebImageTestServer",
            dependencies: [
                // For `Locked`, the lock ThreadSanitizer sees (scripts/tsan-check.sh runs the tests).
                "WebImageSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            path: "Tests/WebImageTestServer"
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                // WebImageSupport for `Locked` (the lock ThreadSanitizer sees), as the test server;
                // ImageEngine for `MallocArenas` (a glibc call).
                "WebImage", "WebImageServer", "WebImageSupport", "ImageEngine",
                // Built beside it: the child process PDFs and costly SVGs render in.
                "webimage-render",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ] + (tsanBuild ? [] : [
                // `serve`'s spans exported over OTLP/HTTP, the one process-wide tracer bootstrapped in its main.
                .product(name: "OTel", package: "swift-otel"),
            ])
        ),
        // A Hummingbird application with its own logging, metrics and tracing mounting the
        // server under /img (the mounting tests run it as a child process).
        .executableTarget(
            name: "webimage-hummingbird-host",
            dependencies: [
                "WebImageServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Examples/HummingbirdHost"
        ),
        // The same host on Vapor 4 (the mounting tests run both).
        .executableTarget(
            name: "webimage-vapor-host",
            dependencies: [
                "WebImageVapor",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Examples/VaporHost"
        ),
        // Direct C calls (libvips, TurboJPEG, libpng) the coder benchmark compares us against.
        .target(
            name: "CBenchmarkBaselines",
            dependencies: ["CLibvips", "CBitmapKernels"],
            path: "Benchmarks/CBenchmarkBaselines",
            linkerSettings: [.linkedLibrary("turbojpeg"), .linkedLibrary("png16"), .linkedLibrary("lcms2")]
        ),
        .executableTarget(
            name: "webimage-benchmark",
            dependencies: [
                "WebImage", "ImageEngine", "CBenchmarkBaselines", "WebImageTestServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            path: "Benchmarks/webimage-benchmark"
        ),
        // Writes cache entries from a second process for the cache's multi-process test.
        .executableTarget(
            name: "cache-stress-writer",
            dependencies: ["WebImage"],
            path: "Tests/CacheStressWriter"
        ),
        // The liborc race reproducer (scripts/orc-race.sh; a short run in LiborcLockTests), with
        // CVipsGlue's lock linked in.
        .executableTarget(
            name: "orc-race-probe",
            dependencies: ["CVipsGlue", "CLibvips"],
            path: "Tests/OrcRaceProbe",
            linkerSettings: [.linkedLibrary("orc-0.4")]
        ),
        // The child process that renders PDF pages and costly SVGs within a CPU time budget
        // (IsolatedRenderer): the library looks for it beside the running executable.
        .executableTarget(
            name: "webimage-render",
            dependencies: ["ImageEngine"]
        ),
        // Decodes one file in a process of its own and prints its peak memory, for the bomb tests.
        .executableTarget(
            name: "decode-probe",
            dependencies: ["WebImage"],
            path: "Tests/DecodeProbe"
        ),
        // What every test suite uses: the threads test bodies run on (OffThePool.swift) and the
        // pixel comparisons, optimized in a debug build too: they walk every sample of images up
        // to 18 MP (SampleDifference.swift says why).
        .target(
            name: "WebImageTestSupport",
            path: "Tests/WebImageTestSupport",
            swiftSettings: [.unsafeFlags(["-O"])]
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                // WebImageTestServer: a real HTTP server on 127.0.0.1 for the tests.
                "WebImage", "ImageEngine", "cache-stress-writer", "decode-probe", "orc-race-probe", "webimage", "webimage-render",
                "WebImageTestServer", "WebImageTestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            // Read by path (TestImages.fixture), not bundled.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WebImageServerTests",
            dependencies: [
                // ImageEngine: results compared with libvips' own operations.
                "WebImageServer", "WebImageServerCore", "WebImage", "ImageEngine", "WebImageSupport", "WebImageTestServer", "WebImageTestSupport", "webimage", "webimage-render",
                "webimage-hummingbird-host", "webimage-vapor-host",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // NIOPosix: the abusive clients' raw connections (AbusiveClientTests).
                .product(name: "NIOPosix", package: "swift-nio"),
                // NIOEmbedded: the connection limits handler driven on a virtual clock.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
