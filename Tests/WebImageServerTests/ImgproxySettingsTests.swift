import Foundation
import Testing
@testable import WebImageServer
@testable import WebImageServerCore
import WebImageTestSupport

/// An imgproxy deployment's settings are read as they are: under `IMGPROXY_` as under
/// `WEBIMAGE_`, every imgproxy open-source setting read or refused by name, and no name set that
/// the server silently ignores.
@Suite(.offThePool) struct ImgproxySettingsTests {
    /// imgproxy's settings as its code reads them (docs/imgproxy/imgproxy-settings.tsv): the
    /// names under its `IMGPROXY_` prefix.
    static let imgproxyNames: [String] = {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/imgproxy/imgproxy-settings.tsv")
        let lines = ((try? String(contentsOf: file, encoding: .utf8)) ?? "").split(separator: "\n").dropFirst()
        return lines.compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
            return columns.count > 1 && columns[1].hasPrefix("yes") ? String(columns[0]) : nil
        }
    }()

    static func load(_ environment: [String: String], arguments: [String] = []) async throws(ImageServerConfigurationError) -> ImageServerConfiguration {
        do {
            return try await ImageServerConfiguration.load(arguments: ["webimage"] + arguments, environment: environment)
        } catch let error as ImageServerConfigurationError {
            throw error
        } catch {
            throw ImageServerConfigurationError(problems: ["\(error)"])
        }
    }

    static func problems(_ environment: [String: String], arguments: [String] = []) async -> [String] {
        do {
            _ = try await load(environment, arguments: arguments)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func everyImgproxySettingIsARowOfTheTable() {
        #expect(Self.imgproxyNames.count > 150)
        let declared = Set(ImageServerConfiguration.settings.flatMap(\.keys).map(ImageServerSetting.unprefixedEnvironmentName))
        let missing = Self.imgproxyNames.filter { !declared.contains($0) }
        #expect(missing.isEmpty, "imgproxy settings with no row: \(missing)")
    }

    /// The whole list set at once, imgproxy's way: each refused setting is one line naming it;
    /// none is called unknown, and none is ignored.
    @Test func theWholeImgproxyListIsReadOrRefusedByName() async {
        let environment = Dictionary(uniqueKeysWithValues: Self.imgproxyNames.map { ("IMGPROXY_" + $0, "1") })
        let problems = await Self.problems(environment)
        #expect(!problems.contains { $0.contains("not a setting") }, "\(problems.filter { $0.contains("not a setting") })")
        for setting in ImageServerConfiguration.settings {
            guard case .refused = setting.state else { continue }
            let name = ImageServerSetting.unprefixedEnvironmentName(of: setting.key)
            guard Self.imgproxyNames.contains(name) else { continue }
            #expect(problems.contains { $0.hasPrefix(ImageServerSetting.names(of: setting.key) + ": not supported") }, "\(name) is not refused")
        }
        // Each read one, set alone to a value of its kind, is read.
        let workers = try? await Self.load(["IMGPROXY_WORKERS": "3", "IMGPROXY_MAX_SRC_RESOLUTION": "12.5", "IMGPROXY_AUTO_WEBP": "true"])
        #expect(workers?.workers == 3 && workers?.processing.maxSourceResolution == 12_500_000 && workers?.processing.autoWebP == true)
    }

    @Test func webImageNamesWinOverImgproxysAndOlderNamesAreRead() async throws {
        let both = try await Self.load(["WEBIMAGE_WORKERS": "2", "IMGPROXY_WORKERS": "3", "IMGPROXY_CONCURRENCY": "4"])
        #expect(both.workers == 2)
        let older = try await Self.load(["IMGPROXY_CONCURRENCY": "4", "IMGPROXY_ENABLE_WEBP_DETECTION": "true", "IMGPROXY_ETAG_ENABLED": "false"])
        #expect(older.workers == 4 && older.processing.autoWebP == true && older.usesETag == false)
        let level = try await Self.load(["IMGPROXY_LOG_LEVEL": "debug"])
        #expect(level.logLevel == .debug)
        let imgproxys = try await Self.load(["IMGPROXY_LOG_LEVEL": "WARN", "IMGPROXY_LOG_FORMAT": "json"])
        #expect(imgproxys.logLevel == .warning && imgproxys.logFormat == .json)
    }

    @Test func aNameThatIsNoSettingStopsTheServerNamingIt() async throws {
        #expect(await Self.problems(["WEBIMAGE_WORKRES": "3"]) == ["WEBIMAGE_WORKRES: not a setting of this server (docs/server-settings.md lists them)"])
        #expect(await Self.problems(["IMGPROXY_MAX_SRC_RESOLUTON": "3"]) == ["IMGPROXY_MAX_SRC_RESOLUTON: not a setting of this server (docs/server-settings.md lists them)"])
        #expect(await Self.problems([:], arguments: ["--workres", "3"]) == ["--workres: not a setting of this server (docs/server-settings.md lists them)"])
        // A file's keys too, nested ones by their dotted path.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-settings-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"workers": 2, "s3": {"assumeRoleArn": "arn:aws:iam::1:role/images"}, "wrokers": 3}"#.utf8).write(to: file)
        let problems = await Self.problems(["WEBIMAGE_CONFIG": file.path])
        #expect(problems == [
            "WEBIMAGE_S3_ASSUME_ROLE_ARN (--s3-assume-role-arn): not supported yet; the server does not start with it set",
            "\"wrokers\" in the configuration file: not a setting of this server (docs/server-settings.md lists them)",
        ])
        // A file that does not read, or is not JSON, is a problem named as the others are.
        try Data(#"{"workers": 2,"#.utf8).write(to: file)
        for path in [file.path, file.path + ".missing"] {
            let unread = await Self.problems(["WEBIMAGE_CONFIG": path])
            #expect(unread.count == 1 && unread.allSatisfy { $0.hasPrefix("WEBIMAGE_CONFIG (--config): \(path): ") }, "\(unread)")
        }
        // The project's own variables are not the server's.
        #expect(await Self.problems(["WEBIMAGE_TEST_TIME_SCALE": "4", "WEBIMAGE_LIBORC_LOCK": "off", "WEBIMAGE_RENDER": "", "WEBIMAGE_CHECK_BLOCKING": "1"]).isEmpty)
        #expect(await Self.problems(["IMGPROXY_TEST_TIME_SCALE": "4"]) == ["IMGPROXY_TEST_TIME_SCALE: not a setting of this server (docs/server-settings.md lists them)"])
    }
}
