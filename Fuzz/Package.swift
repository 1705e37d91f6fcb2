// swift-tools-version: 6.1
// libFuzzer targets for swift-webimage's parsers of untrusted bytes, one folder each; built and
// run by scripts/fuzz.sh, which sets SWIFT_WEBIMAGE_FUZZ_BUILD so that the repository's own
// modules are built with libFuzzer's coverage and AddressSanitizer, and its dependencies plain.
// Each target has its own main (FuzzerMain: libFuzzer as a library). The C differential target
// jpeg-dc is built by that script with clang directly.
import Foundation
import PackageDescription

/// The repository's package, by path: its identity is its folder's name, whatever the clone is called.
let webImage = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

/// Each Swift target's folder, with the dictionary it holds beside its source (if any) and
/// whether it reads requests or settings (the server's types, `@testable import WebImageServer`).
let swiftTargets: [(name: String, dictionary: String?, server: Bool)] = [
    ("sniff", nil, false), ("header", nil, false), ("jpeg-segments", "jpeg.dict", false), ("apng", nil, false), ("gif", "gif.dict", false),
    ("svg", "svg.dict", false), ("png", "png.dict", false), ("decode", nil, false), ("loading", nil, false),
    ("path", "path.dict", true), ("signature", nil, true), ("canonical", nil, true), ("accept", "accept.dict", true),
    ("settings", nil, true), ("request-headers", nil, true), ("placeholders", nil, false), ("info", nil, false),
    ("store-replies", nil, true),
]

/// The targets' code is instrumented as the repository's is; linked with libFuzzer (its main
/// unused) and the AddressSanitizer runtime, by lld (gold fails on the result).
let instrumented: [SwiftSetting] = [.unsafeFlags(["-sanitize=fuzzer,address"])]
let linked: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]

let package = Package(
    name: "swift-webimage-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .systemLibrary(name: "CLibFuzzer", path: "libfuzzer"),
        .target(name: "FuzzerMain", dependencies: ["CLibFuzzer"], path: "driver"),
    ] + swiftTargets.map { name, dictionary, server in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: [
                "FuzzerMain",
                .product(name: "WebImage", package: webImage),
            ] + (server ? [.product(name: "WebImageServer", package: webImage)] : []),
            path: name,
            exclude: [dictionary, "seeds"].compactMap { $0 }.filter {
                FileManager.default.fileExists(atPath: Context.packageDirectory + "/" + name + "/" + $0)
            },
            swiftSettings: instrumented,
            linkerSettings: linked
        )
    },
    swiftLanguageModes: [.v6]
)
