// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-webimage",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebImage", targets: ["WebImage"]),
        .executable(name: "webimage", targets: ["webimage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // The C boundary: libvips (with libpng readers, lcms2 transforms, our resampler) and TurboJPEG,
        // behind one Swift target, LibVips.
        .systemLibrary(
            name: "CLibvips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        // libjpeg-turbo's TurboJPEG API (libturbojpeg0-dev) is the second engine, for small JPEGs.
        .target(
            name: "CVipsShim",
            dependencies: ["CLibvips"],
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("lcms2"), .linkedLibrary("turbojpeg"), .linkedLibrary("jpeg")]
        ),
        // sys/xattr.h (extended attributes, which Glibc leaves out), for the disk cache's extended data.
        .systemLibrary(name: "CXattr"),
        .target(
            name: "LibVips",
            dependencies: [
                "CLibvips",
                "CVipsShim",
                "CXattr",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "WebImage",
            dependencies: [
                "LibVips",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "webimage",
            dependencies: [
                "WebImage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // Until ImageDownloader exists, the command fetches http(s) inputs itself.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        // Direct C calls (libvips, TurboJPEG) the coder benchmark compares us against.
        .target(
            name: "CBenchmarkBaselines",
            dependencies: ["CLibvips", "CVipsShim"],
            linkerSettings: [.linkedLibrary("turbojpeg")]
        ),
        .executableTarget(
            name: "webimage-benchmark",
            dependencies: ["WebImage", "LibVips", "CBenchmarkBaselines"]
        ),
        // Writes cache entries from a second process for the cache's multi-process test.
        .executableTarget(
            name: "cache-stress-writer",
            dependencies: ["WebImage"]
        ),
        .testTarget(
            name: "WebImageTests",
            dependencies: [
                "WebImage", "LibVips", "cache-stress-writer", "webimage",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                // A real HTTP server on 127.0.0.1 for the tests.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // Read by path (TestImages.fixture), not bundled.
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
