// swift-tools-version: 6.1
// libFuzzer targets for swift-webimage's parsers of untrusted bytes, one folder each; built and
// run by scripts/fuzz.sh (with -sanitize=fuzzer,address and -parse-as-library). The C
// differential target jpeg-dc is built by that script with clang directly.
import Foundation
import PackageDescription

/// The repository's package, by path: its identity is its folder's name, whatever the clone is called.
let webImage = URL(fileURLWithPath: Context.packageDirectory).deletingLastPathComponent().lastPathComponent

/// Each Swift target's folder, with the dictionary it holds beside its source (if any).
let swiftTargets: [(name: String, dictionary: String?)] = [
    ("sniff", nil), ("header", nil), ("jpeg-segments", "jpeg.dict"), ("apng", nil), ("gif", "gif.dict"),
    ("svg", "svg.dict"), ("png", "png.dict"), ("decode", nil), ("loading", nil),
]

let package = Package(
    name: "swift-webimage-fuzz",
    dependencies: [.package(path: "..")],
    targets: swiftTargets.map { name, dictionary in
        .executableTarget(
            name: "fuzz-\(name)",
            dependencies: [
                .product(name: "WebImage", package: webImage),
            ],
            path: name,
            exclude: (dictionary.map { [$0] } ?? []) + (name == "loading" ? ["seeds"] : [])
        )
    },
    swiftLanguageModes: [.v6]
)
