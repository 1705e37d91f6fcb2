import Foundation
import WebImage

/// Decode, thumbnail and encode against direct C calls (libvips, TurboJPEG) and Pillow.
enum CoderBenchmarks {
    static func run() throws {}
}
