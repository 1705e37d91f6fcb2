import Foundation

/// Applies processing options, one at a time, to a `ProcessingOptions`, as their declarations
/// in an `OptionTable` read them: 400 naming the option for a name the table does not have
/// or arguments its declaration refuses, 403 for a security option the configuration does
/// not allow.
struct OptionApplier: Sendable {
    let presets: Presets
    let allowSecurityOptions: Bool
    let table: OptionTable

    /// An applier reading the options `table` declares: the server's, or a test's own.
    init(presets: Presets, allowSecurityOptions: Bool, table: OptionTable = .imgproxy) {
        self.presets = presets
        self.allowSecurityOptions = allowSecurityOptions
        self.table = table
    }

    /// Applies `option`; `presetChain` holds the presets being expanded (a preset met again
    /// inside itself is skipped, as imgproxy does).
    func apply(_ option: RawOption, to options: inout ProcessingOptions, now: Date, presetChain: [String] = []) throws(ImageServerError) {
        guard let declaration = table.declaration(named: option.name) else { throw .unknownOption(option.name) }
        if declaration.isSecurityOption, !allowSecurityOptions { throw .securityOptionNotAllowed(option.name) }
        let context = OptionContext(applier: self, now: now, presetChain: presetChain)
        try declaration.apply(ArgumentReader(option, usage: declaration.arguments), &options, context)
    }
}
