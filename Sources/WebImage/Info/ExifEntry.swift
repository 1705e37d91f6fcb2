internal import ImageEngine

/// One EXIF tag of a file, as libexif (the parser libvips' loaders run) names and writes it:
/// imgproxy's /info gives its `title` by default and its `name` with `exif:1:1`.
public struct ExifEntry: Sendable, Equatable {
    /// The canonical name: "DateTimeOriginal".
    public var name: String
    /// The human-readable title: "Date and Time (Original)".
    public var title: String
    /// The value as libexif writes it: "8.00 EV (f/16.0)", "Right-top", "72".
    public var value: String

    /// An entry with these texts.
    public init(name: String, title: String, value: String) {
        (self.name, self.title, self.value) = (name, title, value)
    }

    init(_ tag: ExifTags.Tag) {
        self.init(name: tag.name, title: tag.title, value: tag.value)
    }
}
