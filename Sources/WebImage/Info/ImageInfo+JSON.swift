import Foundation

/// /info's JSON: imgproxy Pro's field names and shapes (docs/usage/getting_info.mdx of
/// imgproxy-docs), each field present when its option is on.
extension ImageInfo: Encodable {
    /// The JSON /info answers, keys sorted (imgproxy writes maps with Go's sorted keys).
    public func jsonData(prettyPrinted: Bool = false) throws -> Data {
        try Self.jsonEncoder(prettyPrinted: prettyPrinted).encode(self)
    }

    /// The encoder `jsonData` uses, for several infos in one array (`webimage info --json`).
    public static func jsonEncoder(prettyPrinted: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        // Go's encoding/json leaves `/` as it is (`image/jpeg`).
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// /info's fields that `options` chose.
    public func encode(to encoder: any Encoder) throws {
        var json = encoder.container(keyedBy: JSONKey.self)
        if options.size { try json.encode(byteCount, forKey: "size") }
        if options.format {
            try json.encode(format.description, forKey: "format")
            try json.encode(mimeType, forKey: "mime_type")
        }
        if options.dimensions {
            try json.encode(pixelWidth, forKey: "width")
            try json.encode(pixelHeight, forKey: "height")
            try json.encode(orientation, forKey: "orientation")
        }
        // A file without EXIF, IPTC or XMP has no such field.
        if options.exif, !exifTags.isEmpty { try json.encode(exif(canonicalNames: options.exifCanonicalNames), forKey: "exif") }
        if options.iptc, let iptc, let datasets = IPTCDatasets(iptc) { try json.encode(datasets, forKey: "iptc") }
        if options.xmp, let xmpProperties { try json.encode(xmpProperties, forKey: "xmp") }
        if options.colorspace { try json.encode(colorspace, forKey: "colorspace") }
        if options.bands { try json.encode(bands, forKey: "bands") }
        if options.sampleFormat { try json.encode(sampleFormat, forKey: "sample_format") }
        if options.pagesNumber { try json.encode(pagesNumber, forKey: "pages_number") }
        // imgproxy's docs show no example of this answer: a flag, and the check's result beside it.
        if options.alpha { try json.encode(hasAlpha, forKey: "alpha") }
        if options.alpha, let isTransparent { try json.encode(isTransparent, forKey: "transparent") }
        if !hashsums.isEmpty {
            try json.encode(Dictionary(uniqueKeysWithValues: hashsums.map { ($0.key.rawValue, $0.value) }), forKey: "hashsums")
        }
        try analyses.encode(into: &json)
        if let objects { try json.encode(objects.map { JSONObject($0, width: pixelWidth, height: pixelHeight) }, forKey: "objects") }
    }

    /// The XMP packet's properties by namespace prefix and name (/info's `xmp`), nil without
    /// a packet or when it is not XML.
    public var xmpProperties: [String: [String: XMPValue]]? {
        xmp.flatMap(XMPProperties.read)
    }

    /// The EXIF tags by title (imgproxy's default) or canonical name, the first of a name kept.
    public func exif(canonicalNames: Bool) -> [String: String] {
        var tags: [String: String] = [:]
        for tag in exifTags where tags[canonicalNames ? tag.name : tag.title] == nil {
            tags[canonicalNames ? tag.name : tag.title] = tag.value
        }
        return tags
    }
}

extension InfoAnalyses {
    /// The analyses' fields, in /info's shapes: colours as `{"R":…,"G":…,"B":…,"A":…}` (the
    /// dominant ones without alpha), the ThumbHash in uppercase hex.
    func encode(into json: inout KeyedEncodingContainer<JSONKey>) throws {
        if let averageColor { try json.encode(JSONColor(averageColor), forKey: "average") }
        if let palette { try json.encode(palette.map { JSONColor($0) }, forKey: "palette") }
        if let dominantColors {
            let swatches: [(String, RGBA8?)] = [
                ("vibrant", dominantColors.vibrant), ("light_vibrant", dominantColors.lightVibrant),
                ("dark_vibrant", dominantColors.darkVibrant), ("muted", dominantColors.muted),
                ("light_muted", dominantColors.lightMuted), ("dark_muted", dominantColors.darkMuted),
            ]
            let found = swatches.compactMap { name, color in color.map { (name, JSONColor($0, withAlpha: false)) } }
            try json.encode(Dictionary(uniqueKeysWithValues: found), forKey: "dominant_colors")
        }
        if let blurHash { try json.encode(blurHash.string, forKey: "blurhash") }
        if let thumbHash { try json.encode(thumbHash.hexString, forKey: "thumb_hash") }
        if let perceptualHash { try json.encode(perceptualHash.hexString, forKey: "perceptual_hash") }
    }
}

/// A colour as /info writes it.
private struct JSONColor: Encodable {
    let color: RGBA8
    let withAlpha: Bool

    init(_ color: RGBA8, withAlpha: Bool = true) {
        (self.color, self.withAlpha) = (color, withAlpha)
    }

    enum CodingKeys: String, CodingKey {
        case red = "R", green = "G", blue = "B", alpha = "A"
    }

    func encode(to encoder: any Encoder) throws {
        var json = encoder.container(keyedBy: CodingKeys.self)
        try json.encode(color.red, forKey: .red)
        try json.encode(color.green, forKey: .green)
        try json.encode(color.blue, forKey: .blue)
        if withAlpha { try json.encode(color.alpha, forKey: .alpha) }
    }
}

/// A face as /info's `objects` writes a detection (imgproxy Pro's): its class (`face`, the one
/// class here, id 0), the detector's confidence, its box in fractions of the image's sides.
private struct JSONObject: Encodable {
    let face: DetectedFace
    let width: Double
    let height: Double

    init(_ face: DetectedFace, width: Int, height: Int) {
        (self.face, self.width, self.height) = (face, Double(max(1, width)), Double(max(1, height)))
    }

    enum CodingKeys: String, CodingKey {
        case classID = "class_id", className = "class_name", confidence, left, top, width, height
    }

    func encode(to encoder: any Encoder) throws {
        var json = encoder.container(keyedBy: CodingKeys.self)
        try json.encode(0, forKey: .classID)
        try json.encode("face", forKey: .className)
        try json.encode(face.confidence, forKey: .confidence)
        try json.encode(Double(face.x) / width, forKey: .left)
        try json.encode(Double(face.y) / height, forKey: .top)
        try json.encode(Double(face.width) / width, forKey: .width)
        try json.encode(Double(face.height) / height, forKey: .height)
    }
}

/// A JSON object key known only at run time.
struct JSONKey: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
    init(stringLiteral value: String) { stringValue = value }
}
