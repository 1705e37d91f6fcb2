import Foundation

/// The decoding a HEIF (HEIC, AVIF) asks of libheif, read from its boxes before libheif reads
/// them: how many coded images it decodes for the primary image (each tile of a grid, each
/// image of an overlay, every reference counted: 65,000 references to one 16x16 tile fit in
/// 130 KB), and their pixels as coded. A tile's size as coded is what its codec's parameters
/// declare (HEVC's sequence parameter set, AV1's sequence header, in its configuration box or
/// its own data), which libheif 1.15 decodes whatever its `ispe` says: 100 tiles declared
/// 64x64 and coded at 2048x2048 decode 400 megapixels for a 640x640 image. libheif decodes the
/// whole image in one call that nothing stops, so this is counted before.
struct HEIFWork: Equatable {
    /// Coded images decoded.
    var decodeCount = 0
    /// Their pixels as coded, saturating at `Int.max`.
    var codedPixelCount = 0

    /// The most coded images decoded for one image: a 48 MP photo of 512x512 tiles has 192; a
    /// tile costs about 0.8 ms of fixed work however small.
    static let maxDecodeCount = 1_024
    /// The most parameter sets and OBUs read (each tile's data is walked for them).
    static let maxUnitCount = 100_000
    /// The most bytes of coded data read for them, beyond the file's own size twice: items
    /// of a valid file have data of their own, but any number of items can point at the same
    /// bytes (libheif copies each).
    static let maxSharedDataBytes = 64 << 20

    /// Why decoding `data`'s primary image would cost too much (`maxPixelCount` counts the
    /// pixels as coded), or nil; also nil for data whose boxes libheif will refuse itself.
    static func excess(in data: Data, maxPixelCount: Int) -> String? {
        let file = HEIFFile(data)
        guard let primary = file.primaryItem else { return nil }
        var work = HEIFWork()
        // The primary image, and what libheif decodes with it or instead of it (its alpha
        // plane, its thumbnails): every item that refers to it.
        let items = [primary] + file.items(referringTo: primary)
        var reader = HEIFWorkReader(file: file, fileSize: data.count)
        for item in items {
            guard let problem = reader.add(item, to: &work, depth: 0, maxPixelCount: maxPixelCount) else { continue }
            return problem
        }
        return nil
    }
}

/// Walks the items an image is derived from, adding the coded images to decode.
private struct HEIFWorkReader {
    let file: HEIFFile
    /// Coded sizes found, by item.
    var codedPixels: [UInt32: Int] = [:]
    var unitCount = 0
    /// Bytes of coded data read, and the most that may be.
    var dataCount = 0
    let maxDataCount: Int

    init(file: HEIFFile, fileSize: Int) {
        self.file = file
        maxDataCount = 2 * fileSize + HEIFWork.maxSharedDataBytes
    }

    mutating func add(_ item: UInt32, to work: inout HEIFWork, depth: Int, maxPixelCount: Int) -> String? {
        // libheif derives images from images (a grid of grids); a loop is corrupt.
        guard depth < 8 else { return "images derived from images more than 8 levels deep" }
        switch file.type(of: item) {
        case "grid", "iovl", "iden":
            for input in file.references(from: item, type: "dimg") {
                if let problem = add(input, to: &work, depth: depth + 1, maxPixelCount: maxPixelCount) { return problem }
            }
            return nil
        default:
            work.decodeCount += 1
            if work.decodeCount > HEIFWork.maxDecodeCount {
                return "more than \(HEIFWork.maxDecodeCount) coded images (tiles) to decode"
            }
            if codedPixels[item] == nil {
                let sum = dataCount.addingReportingOverflow(file.dataCount(of: item))
                dataCount = sum.overflow ? .max : sum.partialValue
                if dataCount > maxDataCount {
                    return "coded images whose data add up to more than \(maxDataCount) bytes"
                }
            }
            let pixels = codedPixels[item] ?? codedPixelCount(of: item)
            codedPixels[item] = pixels
            let sum = work.codedPixelCount.addingReportingOverflow(pixels)
            work.codedPixelCount = sum.overflow ? .max : sum.partialValue
            if unitCount > HEIFWork.maxUnitCount {
                return "more than \(HEIFWork.maxUnitCount) parameter sets and units in its coded images"
            }
            if work.codedPixelCount > maxPixelCount {
                return "coded images of more than \(maxPixelCount) pixels in all (\(work.decodeCount) decoded so far)"
            }
            return nil
        }
    }

    /// The largest size the item's codec parameters declare, or its `ispe` when they declare none.
    private mutating func codedPixelCount(of item: UInt32) -> Int {
        var largest = 0
        func note(_ size: (width: Int, height: Int)?) {
            guard let size else { return }
            let pixels = size.width.multipliedReportingOverflow(by: size.height)
            largest = max(largest, pixels.overflow ? .max : pixels.partialValue)
        }
        switch file.type(of: item) {
        case "hvc1", "hev1":
            let data = file.data(of: item)
            let configuration = file.property("hvcC", of: item)
            var lengthSize = 4
            if let configuration, configuration.count > 22 {
                lengthSize = Int(configuration[configuration.startIndex + 21] & 3) + 1
                for unit in HEVC.configurationUnits(configuration) {
                    unitCount += 1
                    note(HEVC.pictureSize(ofUnit: unit))
                }
            }
            for unit in HEVC.units(in: data, lengthSize: lengthSize, limit: HEIFWork.maxUnitCount - unitCount + 1) {
                unitCount += 1
                note(HEVC.pictureSize(ofUnit: unit))
            }
        case "av01":
            let data = file.data(of: item)
            if let configuration = file.property("av1C", of: item), configuration.count > 4 {
                for unit in AV1.units(in: configuration.dropFirst(4), limit: HEIFWork.maxUnitCount - unitCount + 1) {
                    unitCount += 1
                    note(AV1.maxFrameSize(ofUnit: unit))
                }
            }
            for unit in AV1.units(in: data, limit: HEIFWork.maxUnitCount - unitCount + 1) {
                unitCount += 1
                note(AV1.maxFrameSize(ofUnit: unit))
            }
        default:
            break
        }
        if largest == 0, let size = file.imageSpatialExtent(of: item) {
            note(size)
        }
        return largest
    }
}
