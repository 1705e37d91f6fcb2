/// The IPTC-IIM datasets /info names (IIM 4.2's records 1 – 9), as imgproxy's open-source
/// `imagemeta/iptc` lists them, which imgproxy Pro's /info answers with: each dataset's name,
/// title, how its value reads, whether it repeats and the sizes its value may have (a dataset
/// outside them is left out, as imgproxy leaves it).
struct IPTCTag: Sendable {
    /// How a dataset's bytes read: a big-endian integer (byte, short, long), text (strings,
    /// dates, times) or bytes (base64 in JSON, as Go writes `[]byte`).
    enum Value: Sendable {
        case integer, text, binary
    }

    let record: UInt8
    let dataset: UInt8
    let name: String
    let title: String
    let value: Value
    let repeatable: Bool
    let sizes: ClosedRange<Int>

    /// The known datasets by record and dataset number.
    static let known: [UInt16: IPTCTag] = Dictionary(uniqueKeysWithValues: all.map { (UInt16($0.record) << 8 | UInt16($0.dataset), $0) })

    /// The tag of `record`:`dataset`, nil for one /info does not name.
    static func tag(record: UInt8, dataset: UInt8) -> IPTCTag? {
        known[UInt16(record) << 8 | UInt16(dataset)]
    }

    private static let all: [IPTCTag] = [
        IPTCTag(record: 1, dataset: 0, name: "ModelVersion", title: "Model Version", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 1, dataset: 5, name: "Destination", title: "Destination", value: .text, repeatable: true, sizes: 0...1024),
        IPTCTag(record: 1, dataset: 20, name: "FileFormat", title: "File Format", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 1, dataset: 22, name: "FileVersion", title: "File Version", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 1, dataset: 30, name: "ServiceID", title: "Service Identifier", value: .text, repeatable: false, sizes: 0...10),
        IPTCTag(record: 1, dataset: 40, name: "EnvelopeNum", title: "Envelope Number", value: .text, repeatable: false, sizes: 8...8),
        IPTCTag(record: 1, dataset: 50, name: "ProductID", title: "Product I.D.", value: .text, repeatable: true, sizes: 0...32),
        IPTCTag(record: 1, dataset: 60, name: "EnvelopePriority", title: "Envelope Priority", value: .text, repeatable: false, sizes: 1...1),
        IPTCTag(record: 1, dataset: 70, name: "DateSent", title: "Date Sent", value: .text, repeatable: false, sizes: 8...8),
        IPTCTag(record: 1, dataset: 80, name: "TimeSent", title: "Time Sent", value: .text, repeatable: false, sizes: 11...11),
        IPTCTag(record: 1, dataset: 90, name: "CharacterSet", title: "Coded Character Set", value: .binary, repeatable: false, sizes: 0...32),
        IPTCTag(record: 1, dataset: 100, name: "UNO", title: "Unique Name of Object", value: .text, repeatable: false, sizes: 14...80),
        IPTCTag(record: 1, dataset: 120, name: "ARMID", title: "ARM Identifier", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 1, dataset: 122, name: "ARMVersion", title: "ARM Version", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 0, name: "RecordVersion", title: "Record Version", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 3, name: "ObjectType", title: "Object Type Reference", value: .text, repeatable: false, sizes: 3...67),
        IPTCTag(record: 2, dataset: 4, name: "ObjectAttribute", title: "Object Attribute Reference", value: .text, repeatable: true, sizes: 4...68),
        IPTCTag(record: 2, dataset: 5, name: "ObjectName", title: "Object Name", value: .text, repeatable: false, sizes: 0...64),
        IPTCTag(record: 2, dataset: 7, name: "EditStatus", title: "Edit Status", value: .text, repeatable: false, sizes: 0...64),
        IPTCTag(record: 2, dataset: 8, name: "EditorialUpdate", title: "Editorial Update", value: .text, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 10, name: "Urgency", title: "Urgency", value: .text, repeatable: false, sizes: 1...1),
        IPTCTag(record: 2, dataset: 12, name: "SubjectRef", title: "Subject Reference", value: .text, repeatable: true, sizes: 13...236),
        IPTCTag(record: 2, dataset: 15, name: "Category", title: "Category", value: .text, repeatable: false, sizes: 0...3),
        IPTCTag(record: 2, dataset: 20, name: "SupplCategory", title: "Supplemental Category", value: .text, repeatable: true, sizes: 0...32),
        IPTCTag(record: 2, dataset: 22, name: "FixtureID", title: "Fixture Identifier", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 25, name: "Keywords", title: "Keywords", value: .text, repeatable: true, sizes: 0...64),
        IPTCTag(record: 2, dataset: 26, name: "ContentLocCode", title: "Content Location Code", value: .text, repeatable: true, sizes: 3...3),
        IPTCTag(record: 2, dataset: 27, name: "ContentLocName", title: "Content Location Name", value: .text, repeatable: true, sizes: 0...64),
        IPTCTag(record: 2, dataset: 30, name: "ReleaseDate", title: "Release Date", value: .text, repeatable: false, sizes: 8...8),
        IPTCTag(record: 2, dataset: 35, name: "ReleaseTime", title: "Release Time", value: .text, repeatable: false, sizes: 11...11),
        IPTCTag(record: 2, dataset: 37, name: "ExpirationDate", title: "Expiration Date", value: .text, repeatable: false, sizes: 8...8),
        IPTCTag(record: 2, dataset: 38, name: "ExpirationTime", title: "Expiration Time", value: .text, repeatable: false, sizes: 11...11),
        IPTCTag(record: 2, dataset: 40, name: "SpecialInstructions", title: "Special Instructions", value: .text, repeatable: false, sizes: 0...256),
        IPTCTag(record: 2, dataset: 42, name: "ActionAdvised", title: "Action Advised", value: .text, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 45, name: "RefService", title: "Reference Service", value: .text, repeatable: true, sizes: 0...10),
        IPTCTag(record: 2, dataset: 47, name: "RefDate", title: "Reference Date", value: .text, repeatable: true, sizes: 8...8),
        IPTCTag(record: 2, dataset: 50, name: "RefNumber", title: "Reference Number", value: .text, repeatable: true, sizes: 8...8),
        IPTCTag(record: 2, dataset: 55, name: "DateCreated", title: "Date Created", value: .text, repeatable: false, sizes: 8...19),
        IPTCTag(record: 2, dataset: 60, name: "TimeCreated", title: "Time Created", value: .text, repeatable: false, sizes: 6...11),
        IPTCTag(record: 2, dataset: 62, name: "DigitalCreationDate", title: "Digital Creation Date", value: .text, repeatable: false, sizes: 8...8),
        IPTCTag(record: 2, dataset: 63, name: "DigitalCreationTime", title: "Digital Creation Time", value: .text, repeatable: false, sizes: 11...11),
        IPTCTag(record: 2, dataset: 65, name: "OriginatingProgram", title: "Originating Program", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 70, name: "ProgramVersion", title: "Program Version", value: .text, repeatable: false, sizes: 0...10),
        IPTCTag(record: 2, dataset: 75, name: "ObjectCycle", title: "Object Cycle", value: .text, repeatable: false, sizes: 1...1),
        IPTCTag(record: 2, dataset: 80, name: "Byline", title: "By-line", value: .text, repeatable: true, sizes: 0...32),
        IPTCTag(record: 2, dataset: 85, name: "BylineTitle", title: "By-line Title", value: .text, repeatable: true, sizes: 0...32),
        IPTCTag(record: 2, dataset: 90, name: "City", title: "City", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 92, name: "Sublocation", title: "Sub-location", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 95, name: "State", title: "Province/State", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 100, name: "CountryCode", title: "Country Code", value: .text, repeatable: false, sizes: 3...3),
        IPTCTag(record: 2, dataset: 101, name: "CountryName", title: "Country Name", value: .text, repeatable: false, sizes: 0...64),
        IPTCTag(record: 2, dataset: 103, name: "OrigTransRef", title: "Original Transmission Reference", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 105, name: "Headline", title: "Headline", value: .text, repeatable: false, sizes: 0...256),
        IPTCTag(record: 2, dataset: 110, name: "Credit", title: "Credit", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 115, name: "Source", title: "Source", value: .text, repeatable: false, sizes: 0...32),
        IPTCTag(record: 2, dataset: 116, name: "CopyrightNotice", title: "Copyright Notice", value: .text, repeatable: false, sizes: 0...128),
        IPTCTag(record: 2, dataset: 118, name: "Contact", title: "Contact", value: .text, repeatable: true, sizes: 0...128),
        IPTCTag(record: 2, dataset: 120, name: "Caption", title: "Caption/Abstract", value: .text, repeatable: false, sizes: 0...2000),
        IPTCTag(record: 2, dataset: 122, name: "WriterEditor", title: "Writer/Editor", value: .text, repeatable: true, sizes: 0...32),
        IPTCTag(record: 2, dataset: 125, name: "RasterizedCaption", title: "Rasterized Caption", value: .binary, repeatable: false, sizes: 7360...7360),
        IPTCTag(record: 2, dataset: 130, name: "ImageType", title: "Image Type", value: .text, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 131, name: "ImageOrientation", title: "Image Orientation", value: .text, repeatable: false, sizes: 1...1),
        IPTCTag(record: 2, dataset: 135, name: "LanguageID", title: "Language Identifier", value: .text, repeatable: false, sizes: 2...3),
        IPTCTag(record: 2, dataset: 150, name: "AudioType", title: "Audio Type", value: .text, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 151, name: "AudioSamplingRate", title: "Audio Sampling Rate", value: .text, repeatable: false, sizes: 6...6),
        IPTCTag(record: 2, dataset: 152, name: "AudioSamplingRes", title: "Audio Sampling Resolution", value: .text, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 153, name: "AudioDuration", title: "Audio Duration", value: .text, repeatable: false, sizes: 6...6),
        IPTCTag(record: 2, dataset: 154, name: "AudioOutcue", title: "Audio Outcue", value: .text, repeatable: false, sizes: 0...64),
        IPTCTag(record: 2, dataset: 200, name: "PreviewFileFormat", title: "Preview File Format", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 201, name: "PreviewFileFormatVer", title: "Preview File Format Version", value: .integer, repeatable: false, sizes: 2...2),
        IPTCTag(record: 2, dataset: 202, name: "PreviewData", title: "Preview Data", value: .binary, repeatable: false, sizes: 0...256000),
        IPTCTag(record: 7, dataset: 10, name: "SizeMode", title: "Size Mode", value: .integer, repeatable: false, sizes: 1...1),
        IPTCTag(record: 7, dataset: 20, name: "MaxSubfileSize", title: "Max Subfile Size", value: .integer, repeatable: false, sizes: 3...4),
        IPTCTag(record: 7, dataset: 90, name: "ObjectSizeAnnounced", title: "Object Size Announced", value: .integer, repeatable: false, sizes: 3...4),
        IPTCTag(record: 7, dataset: 95, name: "MaxObjectSize", title: "Maximum Object Size", value: .integer, repeatable: false, sizes: 3...4),
        IPTCTag(record: 8, dataset: 10, name: "Subfile", title: "Subfile", value: .binary, repeatable: true, sizes: 0...4294967295),
        IPTCTag(record: 9, dataset: 10, name: "ConfirmedDataSize", title: "Confirmed Data Size", value: .integer, repeatable: false, sizes: 3...4),
    ]
}
