import Foundation
import Testing
import ImageEngine
@testable import WebImage
import WebImageTestSupport

/// HEIC and AVIF grids that ask libheif for more decoding than their size says: thousands of
/// references to one tile, or tiles coded far larger than their `ispe` declares. libheif 1.15
/// decodes the whole grid in one call that nothing stops; `HEIFWork` counts it first.
@Suite(.offThePool) struct HEIFWorkTests {
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        be32(8 + body.count) + Array(type.utf8) + body
    }

    static func fullBox(_ type: String, version: UInt8 = 0, flags: UInt8 = 0, _ body: [UInt8]) -> [UInt8] {
        box(type, [version, 0, 0, flags] + body)
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value & 0xFFFF) }

    /// The codec's configuration box and the coded data of a black `side` x `side` image as
    /// libvips' HEIF saver writes it.
    static func tile(_ compression: String, side: Int) throws -> (configuration: [UInt8], coded: [UInt8]) {
        let heif = try VipsImageRef.placeholder(width: side, height: side, bands: 3)
            .save("heifsave_buffer", options: "compression=\(compression),Q=30,strip=true")
        let file = HEIFFile(heif)
        let item = try #require(file.primaryItem)
        let type = compression == "hevc" ? "hvcC" : "av1C"
        let configuration = try #require(file.property(type, of: item))
        return (box(type, Array(configuration)), Array(file.data(of: item)))
    }

    /// A HEIF whose primary item is a grid of `rows` x `columns` tiles declared `side` x `side`
    /// (their `ispe`) and coded at `codedSide`: each tile an item of its own, or (`oneItem`)
    /// every reference to one item; the coded data followed by a unit of `codedPadding` bytes.
    static func grid(
        _ compression: String, rows: Int, columns: Int, side: Int, codedSide: Int? = nil, oneItem: Bool = false, codedPadding: Int = 0
    ) throws -> Data {
        var (configuration, coded) = try tile(compression, side: codedSide ?? side)
        if codedPadding > 4 { coded += be32(codedPadding - 4) + [UInt8](repeating: 0, count: codedPadding - 4) }
        let kind = compression == "hevc" ? "hvc1" : "av01", brand = compression == "hevc" ? "heic" : "avif"
        let tiles = rows * columns
        let items = oneItem ? [2] : Array(2..<(2 + tiles))
        let references = oneItem ? Array(repeating: 2, count: tiles) : items
        // Tiles are hidden (flags 1); the grid is item 1.
        var entries: [UInt8] = be16(1 + items.count) + fullBox("infe", version: 2, be16(1) + be16(0) + Array("grid".utf8) + [0])
        for item in items { entries += fullBox("infe", version: 2, flags: 1, be16(item) + be16(0) + Array(kind.utf8) + [0]) }
        let itemInfo = fullBox("iinf", entries)
        var referenced: [UInt8] = be16(1) + be16(tiles)
        for item in references { referenced += be16(item) }
        let itemReferences = fullBox("iref", box("dimg", referenced))
        let properties = box("ipco", configuration
            + fullBox("ispe", be32(side) + be32(side)) + fullBox("ispe", be32(columns * side) + be32(rows * side)))
        // The grid: its ispe (3); each tile: the configuration (1, essential) and its ispe (2).
        var associated: [UInt8] = be32(1 + items.count) + be16(1) + [1, 3]
        for item in items { associated += be16(item) + [2, 0x81, 2] }
        let associations = fullBox("ipma", associated)
        let gridData: [UInt8] = [0, 0, UInt8(rows - 1), UInt8(columns - 1)] + be16(columns * side) + be16(rows * side)
        // An item's location: construction method (1: in idat), no data reference, one extent.
        func location(_ item: Int, method: Int, offset: Int, length: Int) -> [UInt8] {
            var entry: [UInt8] = be16(item) + be16(method)
            entry += be16(0) + be16(1)
            return entry + be32(offset) + be32(length)
        }
        func locations(_ mdat: Int) -> [UInt8] {
            // Version 1, 4-byte offsets and lengths; the grid's data in idat.
            var body: [UInt8] = [0x44, 0x00] + be16(1 + items.count)
            body += location(1, method: 1, offset: 0, length: gridData.count)
            for item in items { body += location(item, method: 0, offset: mdat, length: coded.count) }
            return fullBox("iloc", version: 1, body)
        }
        let handler = fullBox("hdlr", [0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let primary = fullBox("pitm", be16(1))
        let fileType = box("ftyp", Array(brand.utf8) + [0, 0, 0, 0] + Array("mif1\(brand)miaf".utf8))
        func meta(_ mdat: Int) -> [UInt8] {
            fullBox("meta", handler + primary + locations(mdat) + itemInfo + itemReferences
                + box("iprp", properties + associations) + box("idat", gridData))
        }
        let mdat = fileType.count + meta(0).count + 8
        return Data(fileType + meta(mdat) + box("mdat", coded))
    }

    static func refusal(_ data: Data, options: ImageCoderOptions = ImageCoderOptions()) -> ImageCodingError? {
        #expect(throws: ImageCodingError.self) { try ImageCodersManager.shared.decode(data, options: options) }
    }

    @Test func gridOfAFewTilesDecodes() throws {
        let data = try Self.grid("hevc", rows: 2, columns: 3, side: 64)
        #expect(HEIFWork.excess(in: data, maxPixelCount: ImageCoderOptions.defaultMaxPixelCount) == nil)
        let image = try TestImages.decoded(data)
        #expect(image.pixelWidth == 192 && image.pixelHeight == 128)
    }

    @Test func gridOfThousandsOfReferencesIsRefused() throws {
        // 40 x 40 references to one 64x64 tile, 11 KB: 1,600 decodes of it (65,280 fit in 130 KB).
        let data = try Self.grid("hevc", rows: 40, columns: 40, side: 64, oneItem: true)
        guard case .overLimit(.heic, let reason)? = Self.refusal(data) else {
            Issue.record("not refused for its tiles")
            return
        }
        #expect(reason.contains("more than \(HEIFWork.maxDecodeCount) coded images"))
        // Within the count, it decodes.
        #expect(try TestImages.decoded(Self.grid("hevc", rows: 4, columns: 5, side: 64, oneItem: true)).pixelWidth == 320)
    }

    @Test(arguments: ["hevc", "av1"])
    func tilesCodedLargerThanDeclaredCountTheirCodedPixels(compression: String) throws {
        // 4 x 4 tiles declared 16x16 (a 64x64 image) and coded at 256x256: a megapixel decoded.
        let data = try Self.grid(compression, rows: 4, columns: 4, side: 16, codedSide: 256)
        let format: ImageFormat = compression == "hevc" ? .heic : .avif
        var options = ImageCoderOptions()
        options.decodeMaxPixelCount = 500_000
        guard case .overLimit(format, let reason)? = Self.refusal(data, options: options) else {
            Issue.record("not refused for the tiles' coded size")
            return
        }
        #expect(reason.contains("coded images of more than 500000 pixels"))
        // libheif decodes them whole, whatever the tiles declare.
        #expect(try TestImages.decoded(data).pixelWidth == 64)
    }

    @Test func itemsPointingAtTheSameBytesAreCounted() throws {
        // Each tile its own item, all pointing at one megabyte: 80 MB read for a 1 MB file is
        // more than twice the file and the allowance; 20 MB is not.
        let many = try Self.grid("hevc", rows: 8, columns: 10, side: 64, codedPadding: 1 << 20)
        #expect(HEIFWork.excess(in: many, maxPixelCount: .max)?.contains("data add up to more than") == true)
        let few = try Self.grid("hevc", rows: 4, columns: 5, side: 64, codedPadding: 1 << 20)
        #expect(HEIFWork.excess(in: few, maxPixelCount: .max) == nil)
    }

    @Test func mutatedFilesAreReadWithoutTrapping() throws {
        // Every byte of a grid file and of a real one's boxes (its first 3,905 bytes) set in turn
        // to 0 and to 255: the walk must end (refusing or not) without trapping on a bound.
        for data in [try Self.grid("av1", rows: 2, columns: 2, side: 16), try TestImages.data("sdwebimage/TestImage.heic").prefix(3_905)] {
            var bytes = [UInt8](data)
            for index in bytes.indices {
                let original = bytes[index]
                for value: UInt8 in [0, 0xFF] {
                    bytes[index] = value
                    _ = HEIFWork.excess(in: Data(bytes), maxPixelCount: 1_000_000)
                }
                bytes[index] = original
            }
        }
    }

    @Test(arguments: ["sdwebimage/TestImage.heic", "sdwebimage/TestImage.heif"])
    func realFilesAreCounted(name: String) throws {
        let data = try TestImages.data(name)
        #expect(HEIFWork.excess(in: data, maxPixelCount: ImageCoderOptions.defaultMaxPixelCount) == nil)
        // Their coded size is their declared size, rounded up to the codec's blocks.
        #expect(HEIFWork.excess(in: data, maxPixelCount: 1) != nil)
        #expect(try TestImages.decoded(data).pixelWidth > 0)
    }
}
