import Foundation
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// The S3 signer against AWS's published Signature Version 4 test suite (cases copied from
/// the suite as botocore ships it: Tests/S3/aws-sig-v4-test-suite, Apache 2.0, with its
/// notice), AWS's S3 documentation example, and botocore's own S3 signer on the requests
/// S3Source makes (Tests/S3/botocore-sigv4.json, written by Tests/S3/sigv4_reference.py).
@Suite("AWS Signature Version 4", .offThePool)
struct SignatureV4Tests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("S3")

    /// A test suite case's `.req`: the request line, `Name:value` headers, a blank line, the body.
    static func request(_ text: String) throws -> (SignatureV4.Request, timestamp: String) {
        let (head, body) = text.range(of: "\n\n").map { (String(text[..<$0.lowerBound]), String(text[$0.upperBound...])) } ?? (text, "")
        var lines = head.components(separatedBy: "\n")
        let requestLine = lines.removeFirst()
        let method = try #require(requestLine.split(separator: " ").first)
        // The target may hold spaces (get-space): everything between the method and " HTTP/1.1".
        let target = requestLine.dropFirst(method.count + 1).dropLast(" HTTP/1.1".count)
        let (path, query) = target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[target.index(after: $0)...])) } ?? (String(target), "")
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...]))
        }
        let timestamp = try #require(headers.first { $0.name.lowercased() == "x-amz-date" }?.value)
        let hash = SignatureV4.payloadHash(Data(body.utf8))
        return (SignatureV4.Request(method: String(method), path: path, query: query, headers: headers, payloadHash: hash), timestamp)
    }

    static let suiteCases = [
        "get-vanilla", "get-vanilla-query-order-key-case", "get-vanilla-query-unreserved", "get-vanilla-utf8-query",
        "get-header-value-trim", "get-header-key-duplicate", "get-utf8", "get-unreserved", "get-vanilla-with-session-token",
        "post-vanilla", "post-x-www-form-urlencoded", "get-space", "get-slashes", "get-relative-relative", "get-slash-dot-slash",
    ]

    @Test(arguments: suiteCases) func theAWSTestSuite(_ name: String) throws {
        let folder = Self.folder.appendingPathComponent("aws-sig-v4-test-suite/\(name)")
        func file(_ suffix: String) throws -> String { try String(contentsOf: folder.appendingPathComponent("\(name).\(suffix)"), encoding: .utf8) }
        var (request, timestamp) = try Self.request(try file("req"))
        var token: String?
        if name == "get-vanilla-with-session-token" {
            // The suite signs it with the token its signed request shows.
            let signed = try file("sreq")
            token = try #require(signed.components(separatedBy: "\n").first { $0.hasPrefix("X-Amz-Security-Token:") }?.dropFirst("X-Amz-Security-Token:".count)).map(String.init)
            request.headers.append(("X-Amz-Security-Token", try #require(token)))
        }
        let signer = SignatureV4(
            credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: token),
            region: "us-east-1", service: "service", normalizesPath: true
        )
        let canonical = signer.canonicalRequest(request)
        #expect(canonical == (try file("creq")))
        #expect(signer.stringToSign(canonicalRequest: canonical, timestamp: timestamp) == (try file("sts")))
        #expect(signer.authorization(request, timestamp: timestamp) == (try file("authz")))
    }

    /// AWS's S3 documentation: "Example: GET Object" (Signature Version 4, header-based), whose
    /// published signature is f0e8bdb8...
    @Test func theS3DocumentationExample() {
        let signer = SignatureV4(
            credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3", normalizesPath: false
        )
        let request = SignatureV4.Request(
            method: "GET", path: "/test.txt", query: "",
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Range", "bytes=0-9"),
                ("x-amz-content-sha256", SignatureV4.emptyPayloadHash), ("x-amz-date", "20130524T000000Z"),
            ],
            payloadHash: SignatureV4.emptyPayloadHash
        )
        #expect(signer.authorization(request, timestamp: "20130524T000000Z") == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    struct Reference: Decodable {
        struct Case: Decodable {
            var name: String
            var url: String
            var region: String
            var sessionToken: String?
            var canonicalRequest: String
            var headers: [String: String]
        }
        var date: String
        var accessKeyID: String
        var secretAccessKey: String
        var cases: [Case]
    }

    @Test func botocoreSignsTheRequestsS3SourceMakesAlike() throws {
        let reference = try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Self.folder.appendingPathComponent("botocore-sigv4.json")))
        // 2026-11-28T02:30:45Z, the time sigv4_reference.py signs at.
        let date = Date(timeIntervalSince1970: 1_795_833_045)
        #expect(SignatureV4.timestamp(date) == reference.date)
        #expect(reference.cases.count == 6)
        for item in reference.cases {
            let signer = SignatureV4(
                credentials: AWSCredentials(accessKeyID: reference.accessKeyID, secretAccessKey: reference.secretAccessKey, sessionToken: item.sessionToken),
                region: item.region, service: "s3", normalizesPath: false
            )
            let url = try #require(URL(string: item.url))
            let headers = try #require(signer.headers(url: url, date: date))
            var ours: [String: String] = [:]
            for (name, value) in headers { ours[name.lowercased()] = value }
            for (name, value) in item.headers {
                #expect(ours[name.lowercased()] == value, "\(item.name): \(name)")
            }
            let request = SignatureV4.Request(
                method: "GET", path: URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "",
                query: url.query(percentEncoded: true) ?? "", headers: headers.filter { $0.name != "Authorization" }, payloadHash: SignatureV4.emptyPayloadHash
            )
            #expect(signer.canonicalRequest(request) == item.canonicalRequest, "\(item.name)")
        }
    }

    @Test func theSecretIsNeverInADescription() {
        let credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "SECRETSECRET", sessionToken: "TOKENTOKEN")
        var dumped = ""
        dump(credentials, to: &dumped)
        var settings = S3Settings()
        settings.credentials = credentials
        let text = "\(credentials) \(String(reflecting: credentials)) \(dumped) \(settings)"
        #expect(text.contains("AKIDEXAMPLE") && !text.contains("SECRETSECRET") && !text.contains("TOKENTOKEN"))
    }
}
