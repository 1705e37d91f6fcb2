import Foundation
import ImageEngine
import Testing
@testable import WebImage
import WebImageTestSupport

/// The JPEG header reading of the TurboJPEG engine says what libvips' says.
@Suite(.offThePool) struct JPEGMetadataTests {
    static func jpegFiles() throws -> [String] {
        try ["sdwebimage", "exif-orientation", "libjpeg-turbo", "photos"].flatMap { try TestImages.files(in: $0) }
            .filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }
    }

    @Test func orientationAndProfileAreLibvips() throws {
        let files = try Self.jpegFiles()
        #expect(files.count > 15)
        var oriented = 0
        var profiled = 0
        for file in files {
            let data = try TestImages.data(file)
            // Files libvips cannot read (12-bit) have nothing to compare.
            guard let libvips = try? VipsImageRef.load("jpegload_buffer", data: data) else { continue }
            let ours = try #require(JPEGMetadata(data), "\(file)")
            #expect(ours.orientation == libvips.orientation, "\(file)")
            #expect(ours.iccProfile == libvips.iccProfile, "\(file)")
            if ours.orientation > 1 { oriented += 1 }
            if ours.iccProfile != nil { profiled += 1 }
        }
        #expect(oriented >= 7 && profiled >= 2)
    }

    @Test func damagedHeadersGiveNothingOrDefaultsNeverACrash() throws {
        let data = try TestImages.data("exif-orientation/Landscape_6.jpg")
        #expect(JPEGMetadata(Data()) == nil)
        #expect(JPEGMetadata(Data([0xFF, 0xD8, 0xFF])) == nil)
        // Cut anywhere in the header: nothing, or what was read so far.
        for cut in stride(from: 4, to: 2_000, by: 7) {
            if let partial = JPEGMetadata(data.prefix(cut)) { #expect((1...8).contains(partial.orientation)) }
        }
        // Random bytes in the EXIF segment: an orientation in range.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var bytes = [UInt8](data.prefix(4_000))
            for _ in 0..<20 { bytes[Int.random(in: 4..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            if let read = JPEGMetadata(Data(bytes)) { #expect((1...8).contains(read.orientation)) }
        }
    }
}
