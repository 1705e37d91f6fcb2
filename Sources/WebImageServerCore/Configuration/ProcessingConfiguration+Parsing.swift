import WebImage

extension ProcessingConfiguration {
    /// `PREFERRED_FORMATS`'s text form, `jpeg,png,gif`, as formats.
    public static func formats(parsing text: String) throws(ImageServerConfigurationError) -> [ImageFormat] {
        var formats: [ImageFormat] = []
        for name in commaSeparated(text) {
            guard let format = FormatNames.format(named: name) else {
                throw ImageServerConfigurationError(problems: ["\"\(text)\": \(name) is not an image format"])
            }
            formats.append(format)
        }
        return formats
    }

    /// `FORMAT_QUALITY`'s text form, `webp=79,avif=63,jxl=77`, as a table (qualities 1...100).
    public static func formatQuality(parsing text: String) throws(ImageServerConfigurationError) -> [ImageFormat: Int] {
        var table: [ImageFormat: Int] = [:]
        for entry in commaSeparated(text) {
            let halves = entry.split(separator: "=", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
            guard halves.count == 2, let format = FormatNames.format(named: halves[0]) else {
                throw ImageServerConfigurationError(problems: ["\"\(text)\": \(entry) is not format=quality"])
            }
            guard let quality = Int(halves[1]), (1...100).contains(quality) else {
                throw ImageServerConfigurationError(problems: ["\"\(text)\": \(halves[1]) is not a quality in 1...100"])
            }
            table[format] = quality
        }
        return table
    }

    /// `PRESETS`'s text form, `name=option/option,name=option`, as entries for `presets`.
    public static func presets(parsing text: String) -> [String] {
        commaSeparated(text)
    }

    /// The entries of a comma-separated list, as imgproxy's list settings write them: spaces
    /// around each dropped, empty ones skipped.
    static func commaSeparated(_ text: String) -> [String] {
        text.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }
}
