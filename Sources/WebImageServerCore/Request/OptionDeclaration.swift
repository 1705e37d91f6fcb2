import Foundation

/// One imgproxy processing option, declared once: its names, the arguments it takes, an
/// example, its default, how it is read, and whether it is part of the result key. Made only
/// by `result`, `handling` and `shorthand`, so an option that changes the result
/// cannot be declared without its canonical form.
struct OptionDeclaration: Sendable {
    /// Reads the option's arguments into the options being built.
    typealias Apply = @Sendable (ArgumentReader, inout ProcessingOptions, OptionContext) throws(ImageServerError) -> Void
    /// The option's value as canonical arguments, or nil to leave it out of the key (it is at
    /// a value that does nothing).
    typealias Canonical = @Sendable (ProcessingOptions) -> [String]?

    enum Role: Sendable {
        /// Changes the result's bytes: written into `canonicalForm`, so into the result key.
        case result(Canonical)
        /// Decides whether and how a result is served, not what it is: not in the key.
        case handling
        /// Writes fields that other declarations own (and write into the key).
        case shorthand
    }

    /// What the options hold when the URL does not give this one.
    enum Default: Sendable, Hashable {
        /// What these arguments set (a test applies them to `ProcessingOptions()` and sees no change).
        case arguments(String)
        /// The configuration's setting of this name (`ProcessingConfiguration`).
        case setting(String)
        /// Nothing: the option acts only when given.
        case none
    }

    /// The long name, the one `canonicalForm` writes.
    let name: String
    let aliases: [String]
    /// The arguments taken, as the docs and error messages write them.
    let arguments: String
    /// Arguments that do something (not the default), for the docs and the table's tests.
    let example: String
    let defaultValue: Default
    let role: Role
    /// Refused with 403 unless the configuration allows security options.
    let isSecurityOption: Bool
    let apply: Apply

    /// The long name, then the aliases.
    var names: [String] { [name] + aliases }

    private init(
        _ name: String, aliases: [String], arguments: String, example: String, default defaultValue: Default,
        role: Role, isSecurityOption: Bool, apply: @escaping Apply
    ) {
        self.name = name
        self.aliases = aliases
        self.arguments = arguments
        self.example = example
        self.defaultValue = defaultValue
        self.role = role
        self.isSecurityOption = isSecurityOption
        self.apply = apply
    }

    /// An option that changes the result's bytes, written into the key as `canonical` says.
    static func result(
        _ name: String, aliases: [String] = [], arguments: String, example: String, default defaultValue: Default,
        isSecurityOption: Bool = false, apply: @escaping Apply, canonical: @escaping Canonical
    ) -> Self {
        Self(
            name, aliases: aliases, arguments: arguments, example: example, default: defaultValue,
            role: .result(canonical), isSecurityOption: isSecurityOption, apply: apply
        )
    }

    /// An option that decides whether and how a result is served (headers, expiry, the
    /// security options' limits), not what it is.
    static func handling(
        _ name: String, aliases: [String] = [], arguments: String, example: String, default defaultValue: Default,
        isSecurityOption: Bool = false, apply: @escaping Apply
    ) -> Self {
        Self(
            name, aliases: aliases, arguments: arguments, example: example, default: defaultValue,
            role: .handling, isSecurityOption: isSecurityOption, apply: apply
        )
    }

    /// An option that writes fields other declarations own (`resize`, `size`, `preset`).
    static func shorthand(_ name: String, aliases: [String] = [], arguments: String, example: String, apply: @escaping Apply) -> Self {
        Self(
            name, aliases: aliases, arguments: arguments, example: example, default: .none,
            role: .shorthand, isSecurityOption: false, apply: apply
        )
    }
}

/// What an option is applied with besides its arguments: the time (for `expires`) and the
/// applier, for presets.
struct OptionContext: Sendable {
    let applier: OptionApplier
    let now: Date
    /// The presets being expanded, outermost first.
    let presetChain: [String]

    /// Applies the preset `name`; one met again inside itself is skipped, as imgproxy does.
    func applyPreset(_ name: String, _ reader: ArgumentReader, to options: inout ProcessingOptions) throws(ImageServerError) {
        guard let preset = applier.presets.options[name] else { throw reader.fail("no preset named \(name)") }
        guard !presetChain.contains(name) else { return }
        for option in preset {
            try applier.apply(option, to: &options, now: now, presetChain: presetChain + [name])
        }
    }
}

/// Every processing option the server reads, in the order `canonicalForm` writes them.
struct OptionTable: Sendable {
    let declarations: [OptionDeclaration]
    private let declarationIndex: [String: Int]

    /// A table of `declarations`; a name declared twice reads as its first declaration (a test
    /// keeps the server's table free of them).
    init(_ declarations: [OptionDeclaration]) {
        self.declarations = declarations
        let entries = declarations.enumerated().flatMap { index, declaration in declaration.names.map { ($0, index) } }
        declarationIndex = Dictionary(entries, uniquingKeysWith: { first, _ in first })
    }

    /// The declaration of the option written `name` (long name or alias).
    func declaration(named name: String) -> OptionDeclaration? {
        declarationIndex[name].map { declarations[$0] }
    }

    /// Every result-changing option's canonical arguments under its long name, in the table's
    /// order: `resizing_type:fill/width:300/...`.
    func canonicalForm(of options: ProcessingOptions) -> String {
        declarations.compactMap { declaration in
            guard case .result(let canonical) = declaration.role, let arguments = canonical(options) else { return nil }
            return ([declaration.name] + arguments).joined(separator: ":")
        }
        .joined(separator: "/")
    }
}
