import Foundation

/// imgproxy's S3 settings (`USE_S3` turns `s3://bucket/key` sources on; these say where and how
/// they are read). Requests are signed with AWS Signature Version 4 with `credentials`.
public struct S3Settings: Sendable {
    /// The region requests are signed for (`S3_REGION`); nil: `AWS_REGION`, else
    /// `AWS_DEFAULT_REGION` (read by `ImageServerConfiguration.load`), else `us-west-1`, as
    /// imgproxy falls back.
    public var region: String?
    /// An S3-compatible store (`S3_ENDPOINT`: `http://minio:9000`; `http://` when no scheme is
    /// written); nil: AWS (`https://s3.REGION.amazonaws.com`). The endpoint is trusted by
    /// configuration: the source guard lets it through whatever its address (loopback, private),
    /// for `s3://` sources only: the same address written as an `http://` source is still refused.
    public var endpoint: String?
    /// `ENDPOINT/bucket/key` (true, the default) rather than `bucket.ENDPOINT/key`; applies to
    /// `endpoint` only (AWS is addressed by virtual host where the bucket name allows it).
    public var endpointUsesPathStyle = true
    /// Buckets that may be read; empty: any.
    public var allowedBuckets: [String] = []
    /// Buckets that may not be read, whatever `allowedBuckets` says.
    public var deniedBuckets: [String] = []
    /// The credentials requests are signed with; nil: requests go unsigned (public buckets only).
    /// `ImageServerConfiguration.load` sets them from the environment or the shared credentials
    /// file (`AWSCredentials.fromEnvironment`); a service that builds its configuration in code
    /// sets them itself.
    public var credentials: AWSCredentials?

    public init() {}

    /// imgproxy's region when none is set.
    public static let fallbackRegion = "us-west-1"

    /// The region and credentials not set otherwise taken from the AWS variables of
    /// `environment` and the shared credentials file, as the AWS SDKs find them.
    mutating func takeAWSEnvironment(_ environment: [String: String]) throws(ImageServerConfigurationError) {
        if region == nil {
            region = ["AWS_REGION", "AWS_DEFAULT_REGION"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        }
        if credentials == nil {
            credentials = try AWSCredentials.fromEnvironment(environment)
        }
    }

    /// Whether `bucket` may be read: not denied, and allowed when an allow-list is set.
    public func allows(bucket: String) -> Bool {
        !deniedBuckets.contains(bucket) && (allowedBuckets.isEmpty || allowedBuckets.contains(bucket))
    }
}

/// An AWS access key, and the session token of temporary credentials. Its description, debug
/// description and mirror (`dump`, a configuration printed whole) show the access key ID only:
/// the secret is never written to a log.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "AWSCredentials(\(accessKeyID), secret redacted\(sessionToken == nil ? "" : ", session token redacted"))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["accessKeyID": accessKeyID, "secretAccessKey": "redacted", "sessionToken": sessionToken == nil ? "none" : "redacted"])
    }

    /// The credentials the AWS SDKs find first, without a network call: `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY` (with `AWS_SESSION_TOKEN`) in `environment`, else the profile
    /// `AWS_PROFILE` (default `default`) of the shared credentials file
    /// (`AWS_SHARED_CREDENTIALS_FILE`, default `~/.aws/credentials`). Nil when neither holds
    /// any; throws when a file or profile named explicitly is missing or incomplete. Instance and
    /// container roles (a metadata service) are not read.
    public static func fromEnvironment(_ environment: [String: String]) throws(ImageServerConfigurationError) -> AWSCredentials? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") {
            return AWSCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"))
        }
        if value("AWS_ACCESS_KEY_ID") != nil || value("AWS_SECRET_ACCESS_KEY") != nil {
            throw ImageServerConfigurationError(problems: ["AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: one is set without the other"])
        }
        let explicitFile = value("AWS_SHARED_CREDENTIALS_FILE")
        let home = value("HOME") ?? NSHomeDirectory()
        let path = explicitFile.map { $0.hasPrefix("~/") ? home + $0.dropFirst() : $0 } ?? home + "/.aws/credentials"
        let profile = value("AWS_PROFILE") ?? "default"
        // Through a file handle: Foundation's whole-file reads (`String(contentsOfFile:)`,
        // `FileManager.contents(atPath:)`) leak their 4 KB buffer on an empty file (on Linux; the
        // settings fuzz target found it).
        let handle = FileHandle(forReadingAtPath: path)
        defer { try? handle?.close() }
        guard let handle, let data = try? handle.readToEnd() ?? Data(), let text = String(data: data, encoding: .utf8) else {
            if explicitFile != nil || value("AWS_PROFILE") != nil {
                throw ImageServerConfigurationError(problems: ["\(explicitFile != nil ? "AWS_SHARED_CREDENTIALS_FILE" : "AWS_PROFILE"): cannot read the shared credentials file \(path)"])
            }
            return nil
        }
        guard let section = SharedCredentialsFile.sections(of: text)[profile] else {
            if explicitFile != nil || value("AWS_PROFILE") != nil {
                throw ImageServerConfigurationError(problems: ["AWS_PROFILE: no profile [\(profile)] in \(path)"])
            }
            return nil
        }
        guard let key = section["aws_access_key_id"], let secret = section["aws_secret_access_key"] else {
            throw ImageServerConfigurationError(problems: ["\(path): profile [\(profile)] lacks aws_access_key_id or aws_secret_access_key"])
        }
        return AWSCredentials(accessKeyID: key, secretAccessKey: secret, sessionToken: section["aws_session_token"])
    }
}

/// The AWS shared credentials file: INI sections (`[name]`) of `key = value` lines; `#` and `;`
/// begin comments.
enum SharedCredentialsFile {
    /// Each section's keys (lower-cased) and values, by section name.
    static func sections(of text: String) -> [String: [String: String]] {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#"), !line.hasPrefix(";") else { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                var name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                // The config file's form, `[profile name]`, read here too.
                if name.hasPrefix("profile ") { name = name.dropFirst("profile ".count).trimmingCharacters(in: .whitespaces) }
                current = name
                sections[name, default: [:]] = sections[name] ?? [:]
                continue
            }
            guard let current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[current, default: [:]][key] = value
        }
        return sections
    }
}
