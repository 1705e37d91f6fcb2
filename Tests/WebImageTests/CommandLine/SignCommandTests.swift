import Foundation
import Testing
import WebImageTestSupport

/// `webimage sign`: imgproxy's published signature, from flags and from the server's settings
/// in the environment, under this server's prefix or imgproxy's.
@Suite(.offThePool) struct SignCommandTests {
    /// imgproxy's documented example (key `secret`, salt `hello`), whose path chunks the
    /// base64 source by 16 characters as the command does.
    static let arguments = ["sign", "rs:fill:300:400:0/g:sm", "http://example.com/images/curiosity.jpg", "--format", "png"]
    static let signedPath = "/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"

    @Test func flagsSignImgproxysExample() async throws {
        let result = try await ChildProcess.run("webimage", Self.arguments + ["--key", "736563726574", "--salt", "68656c6c6f"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == Self.signedPath + "\n")
    }

    @Test func theEnvironmentSignsWhenNoFlagsAreGiven() async throws {
        let webimage = try ChildProcess.executable("webimage")
        let environment = ["WEBIMAGE_KEY=736563726574,0000", "WEBIMAGE_SALT=68656c6c6f,0000", "WEBIMAGE_SIGNATURE_SIZE=8"]
        let result = try await ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), environment + [webimage.path] + Self.arguments)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "/oKfUtW34Dvo/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png\n")
    }

    /// An imgproxy environment signs as it is; this server's prefix comes first, as the server
    /// reads it; a flag comes before both.
    @Test func imgproxysVariablesSignAndThisServersComeFirst() async throws {
        let webimage = try ChildProcess.executable("webimage")
        func signed(_ environment: [String], _ flags: [String] = []) async throws -> ChildProcess.Result {
            try await ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/env"), ["-i"] + environment + [webimage.path] + Self.arguments + flags)
        }
        let imgproxy = try await signed(["IMGPROXY_KEY=736563726574", "IMGPROXY_SALT=68656c6c6f"])
        #expect(imgproxy.status == 0 && imgproxy.standardOutput == Self.signedPath + "\n", "\(imgproxy.standardError)")
        let both = try await signed(["IMGPROXY_KEY=0000", "IMGPROXY_SALT=0000", "WEBIMAGE_KEY=736563726574", "WEBIMAGE_SALT=68656c6c6f"])
        #expect(both.standardOutput == Self.signedPath + "\n", "\(both.standardError)")
        let flagged = try await signed(["IMGPROXY_KEY=0000", "IMGPROXY_SALT=0000"], ["--key", "736563726574", "--salt", "68656c6c6f"])
        #expect(flagged.standardOutput == Self.signedPath + "\n", "\(flagged.standardError)")
        // A value the server would refuse is refused here too, by the setting's names.
        let bad = try await signed(["IMGPROXY_KEY=736563726574", "IMGPROXY_SALT=68656c6c6f", "IMGPROXY_SIGNATURE_SIZE=40"])
        #expect(bad.status == 64 && bad.standardError.contains("WEBIMAGE_SIGNATURE_SIZE (--signature-size)"), "\(bad.standardError)")
        #expect(bad.standardOutput.isEmpty)
    }

    @Test func plainSourcesAndUnsignedPaths() async throws {
        let webimage = try ChildProcess.executable("webimage")
        // `env -i`: no key in the environment, so the path is printed unsigned.
        let result = try await ChildProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/env"),
            ["-i", webimage.path, "sign", "w:100", "https://example.com/a b?x=1@2.jpg", "--plain", "--format", "webp"]
        )
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "/unsafe/w:100/plain/https://example.com/a%20b%3Fx=1%402.jpg@webp\n")
        let bad = try await ChildProcess.run("webimage", ["sign", "w:100", "https://example.com/a.jpg", "--key", "zz", "--salt", "00"])
        #expect(bad.status != 0 && bad.standardError.contains("hex"))
    }
}
