// The settings reader (`ImageServerConfiguration.load(arguments:environment:)`): environment
// variables under both prefixes, flags (`--name value` and `--name=value`), a JSON settings file
// and the AWS variables and shared credentials file, each line of the input one of them:
//
//   W<k>value  WEBIMAGE_ variable of setting k      F<k>value  flag --name value
//   I<k>value  IMGPROXY_ variable of setting k      G<k>value  flag --name=value
//   J<k>value  JSON key of setting k, the value as JSON text as it is (the file may not parse)
//   A<k>value  AWS variable k                       C<text>    a line of the credentials file
//   anything else: a variable NAME=VALUE or an argument, as it is (names that are no setting)
//
// where k is a character whose scalar picks a setting's key (or an alias). Every input gives a
// configuration or an `ImageServerConfigurationError` whose every line names what it is about;
// a configuration's settings, written back as text, read back as the same configuration; what
// the server builds from a configuration at start (the parser, the cookie scope, the fallback
// image, URL replacements) either builds or says why not.
import Foundation
import Synchronization
@testable import WebImageServer
@testable import WebImageServerCore
import FuzzerMain

let keys = ImageServerConfiguration.settings.flatMap(\.keys)
let awsNames = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"]
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-settings-\(getpid())")
let jsonPath = folder.appendingPathComponent("settings.json").path
let credentialsPath = folder.appendingPathComponent("credentials").path

/// The result of `body`, run to its end from this synchronous function (libFuzzer's thread is
/// not the cooperative pool's, so waiting here blocks none of its threads).
func waiting<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value {
    let result = Mutex<Value?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 }!
}

/// What `load` gives: a configuration, or its error.
func load(_ arguments: [String], _ environment: [String: String]) -> Result<ImageServerConfiguration, ImageServerConfigurationError> {
    waiting {
        do {
            return .success(try await ImageServerConfiguration.load(arguments: arguments, environment: environment))
        } catch let error as ImageServerConfigurationError {
            return .failure(error)
        } catch {
            preconditionFailure("\(arguments) \(environment): \(type(of: error)) \(error) is not an ImageServerConfigurationError")
        }
    }
}

/// Whether a problem's line says what it is about: a setting's name, a flag, a key of the file,
/// an AWS variable or the credentials file.
func namesItsSubject(_ problem: String) -> Bool {
    ["WEBIMAGE_", "IMGPROXY_", "--", "AWS_", "in the configuration file", credentialsPath].contains { problem.contains($0) }
}

/// The text of each read setting in `configuration`.
func texts(_ configuration: ImageServerConfiguration) -> [String: String] {
    var texts: [String: String] = [:]
    for setting in ImageServerConfiguration.settings {
        if case .read(let binding) = setting.state { texts[setting.key] = binding.text(configuration) }
    }
    return texts
}

let defaults = texts(ImageServerConfiguration())

@main enum Target {
    static func main() { runFuzzer(fuzz) }
}

func fuzz(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    // No home of the machine's: the credentials file is the input's.
    var environment = ["HOME": folder.path, "AWS_SHARED_CREDENTIALS_FILE": credentialsPath]
    var arguments = ["webimage"]
    var json: [String] = []
    var credentials: [String] = []
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        var scalars = line.unicodeScalars[...]
        guard let kind = scalars.popFirst() else { continue }
        let value = { String(String.UnicodeScalarView(scalars)) }
        if kind == "C" {
            credentials.append(value())
            continue
        }
        guard "WIFGJA".unicodeScalars.contains(kind), let pick = scalars.popFirst() else {
            let raw = String(line)
            if let equals = raw.firstIndex(of: "=") { environment[String(raw[..<equals])] = String(raw[raw.index(after: equals)...]) } else { arguments.append(raw) }
            continue
        }
        let key = keys[Int(pick.value) % keys.count]
        switch kind {
        case "W": environment[ImageServerSetting.environmentName(of: key)] = value()
        case "I": environment["IMGPROXY_" + ImageServerSetting.unprefixedEnvironmentName(of: key)] = value()
        case "F": arguments += [ImageServerSetting.flag(of: key), value()]
        case "G": arguments.append(ImageServerSetting.flag(of: key) + "=" + value())
        case "J": json.append("\"\(key)\": \(value())")
        default: environment[awsNames[Int(pick.value) % awsNames.count]] = value()
        }
    }
    // The file is the fuzzer's, not a path it names (which could be any file on the machine).
    arguments.removeAll { $0.hasPrefix("--config") }
    environment = environment.filter { !$0.key.hasSuffix("_CONFIG") }
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try? Data(credentials.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: credentialsPath))
    if !json.isEmpty {
        try? Data(("{" + json.joined(separator: ",\n") + "}").utf8).write(to: URL(fileURLWithPath: jsonPath))
        environment["WEBIMAGE_CONFIG"] = jsonPath
    }

    switch load(arguments, environment) {
    case .failure(let error):
        precondition(!error.problems.isEmpty, "an error without a problem")
        for problem in error.problems { precondition(namesItsSubject(problem), "\(problem): names no setting") }
    case .success(let configuration):
        check(configuration, urls: text.split(separator: "\n").prefix(8).map(String.init))
    }
    return 0
}

func check(_ configuration: ImageServerConfiguration, urls: [String]) {
    // Written back as text, each setting reads back as the same configuration.
    let written = texts(configuration)
    var environment = ["HOME": folder.path]
    for (key, text) in written where text != defaults[key] {
        environment[ImageServerSetting.environmentName(of: key)] = text
    }
    switch load(["webimage"], environment) {
    case .failure(let error):
        // The S3 credentials came from the AWS variables, which are not written back.
        guard configuration.usesS3 else { preconditionFailure("\(environment) does not read back: \(error)") }
    case .success(let again):
        precondition(texts(again) == written, "\(environment) reads back as \(texts(again).filter { written[$0.key] != $0.value })")
    }
    _ = configuration.refusalToStart
    // What the server builds at start.
    if let parser = try? configuration.makeParser() {
        _ = try? parser.parse(path: "/_/rs:fit:10:10/plain/http://example.com/a.jpg")
    }
    // A URL replacement's whole match put back is no change.
    for replacement in configuration.processing.urlReplacements {
        let identity = URLReplacement(pattern: replacement.pattern, replacement: "$0")
        for url in urls + ["http://example.com/a.jpg"] {
            _ = replacement.applied(to: url)
            precondition(identity.applied(to: url) == url, "\(replacement.pattern) changes \(url)")
        }
    }
    _ = try? SourceCookies(configuration: configuration)
    if configuration.fallbackImagePath == nil { _ = try? FallbackImage(configuration: configuration) }
}
