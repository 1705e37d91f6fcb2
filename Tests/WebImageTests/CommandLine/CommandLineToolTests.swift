import Foundation
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

/// The `webimage` command as a user runs it: a child process, real files, a real HTTP server.
@Suite(.offThePool) struct CommandLineToolTests {
    static func path(_ name: String) -> String {
        TestImages.url(name).path
    }

    @Test func infoPrintsOneLinePerImageWithUprightSizeFramesAndLoop() async throws {
        let files = ["exif-orientation/Landscape_6.jpg", "sdwebimage/TestImageAnimated.webp", "sdwebimage/TestLoopCount.gif"]
        let result = try await ChildProcess.run("webimage", ["info"] + files.map(Self.path))
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasSuffix("Landscape_6.jpg: jpeg 1800x1200 frames=1 loop=0 bits=8 primaries=unspecified transfer=unspecified range=full icc=no hdr=no") == true, "\(lines)")
        #expect(lines.dropFirst().first?.contains("TestImageAnimated.webp: webp 990x1050 frames=8 loop=0 bits=8 ") == true)
        // The test images' README: TestLoopCount.gif is 72x48, 2 frames, loop count 1.
        #expect(lines.last?.contains("TestLoopCount.gif: gif 72x48 frames=2 loop=1 bits=8 ") == true, "\(lines)")
    }

    /// The commands' log level is the server's setting, read as the server reads it: imgproxy's
    /// name and its `warn` work, and a value that is no level stops the command, by the
    /// setting's names, before it does anything.
    @Test func theLogLevelIsTheServersSettingAndABadOneStopsTheCommand() async throws {
        let webimage = try ChildProcess.executable("webimage")
        func info(_ level: String) async throws -> ChildProcess.Result {
            try await ChildProcess.run(
                executable: URL(fileURLWithPath: "/usr/bin/env"), ["-i", "IMGPROXY_LOG_LEVEL=\(level)", webimage.path, "info", Self.path("photos/rocket.jpg")]
            )
        }
        let warn = try await info("warn")
        #expect(warn.status == 0 && warn.standardOutput.contains("rocket.jpg: jpeg 640x427"), "\(warn.standardError)")
        let bad = try await info("loud")
        #expect(bad.status == 64 && bad.standardOutput.isEmpty, "\(bad.standardOutput)")
        #expect(bad.standardError.contains("WEBIMAGE_LOG_LEVEL (--log-level)") && bad.standardError.contains("loud"), "\(bad.standardError)")
    }

    @Test func infoOnAFileItCannotReadExitsNonZeroWithTheReasonAndStillReportsTheOthers() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let jpeg = try TestImages.data("photos/rocket.jpg")
        try jpeg.prefix(20).write(to: scratch)
        let missing = "/nonexistent/folder/image.png"
        let folder = FileManager.default.temporaryDirectory.path
        let result = try await ChildProcess.run("webimage", ["info", scratch.path, Self.path("photos/rocket.jpg"), missing, folder])
        #expect(result.status != 0)
        #expect(result.standardOutput.contains("rocket.jpg: jpeg 640x427 frames=1 loop=0"))
        let errors = result.standardError.split(separator: "\n")
        #expect(errors.count == 3)
        #expect(errors.contains { $0.hasPrefix(scratch.path + ": corrupt jpeg data") })
        #expect(errors.contains { $0 == "\(missing): no such file" })
        #expect(errors.contains { $0 == "\(folder): a folder, not a file" })
    }

    @Test func infoAndConvertReadHTTPURLs() async throws {
        try await withOrigin { server in
            let rocket = server.url("/images/photos/rocket.jpg").absoluteString
            let redirected = server.url("/redirect/1/images/photos/rocket.jpg").absoluteString

            let info = try await ChildProcess.run("webimage", ["info", rocket, redirected])
            #expect(info.status == 0, "\(info.standardError)")
            #expect(info.standardOutput.split(separator: "\n").allSatisfy { $0.contains(": jpeg 640x427 frames=1 loop=0 bits=8 ") })

            let missing = try await ChildProcess.run("webimage", ["info", server.url("/missing.png").absoluteString])
            #expect(missing.status != 0 && missing.standardError.contains("HTTP 404"))

            let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString).webp")
            defer { try? FileManager.default.removeItem(at: output) }
            let convert = try await ChildProcess.run("webimage", ["convert", rocket, output.path, "--thumbnail", "100x100"])
            #expect(convert.status == 0, "\(convert.standardError)")
            let thumbnail = try TestImages.decoded(try Data(contentsOf: output))
            #expect(thumbnail.format == .webP && thumbnail.pixelWidth == 100 && abs(thumbnail.pixelHeight - 67) <= 1)
        }
    }

    /// The command fetched with its own client call, which waited out its whole 30 s deadline
    /// on a refused connection; through ImageDownloader it fails, in words.
    @Test func aRefusedConnectionFailsAtOnceWithAReason() async throws {
        let refusing = try RefusingPort()
        let result = try await ChildProcess.run("webimage", ["info", refusing.url("/images/photos/rocket.jpg").absoluteString])
        withExtendedLifetime(refusing) {}
        #expect(result.status == 1)
        #expect(result.standardError.contains("could not connect"), "\(result.standardError)")
        // How fast is tested in the library (DownloadFaultTests.aRefusedConnectionFailsAtOnce):
        // a wall-clock bound here would measure this test process's busy cooperative threads.
    }

    @Test func convertAndFramesFailuresAreOneLineNamingTheFile() async throws {
        let rocket = Self.path("photos/rocket.jpg")
        let missingFolder = "/nonexistent/folder-\(UUID().uuidString)"
        let unwritable = try await ChildProcess.run("webimage", ["convert", rocket, missingFolder + "/out.png"])
        #expect(unwritable.status == 1)
        #expect(unwritable.standardError == "\(rocket): cannot write \(missingFolder)/out.png: no such folder\n")

        let missingInput = "/nonexistent/input-\(UUID().uuidString).jpg"
        let unreadable = try await ChildProcess.run("webimage", ["convert", missingInput, "/tmp/unused.png"])
        #expect(unreadable.status == 1)
        #expect(unreadable.standardError == "\(missingInput): no such file\n")

        let corrupt = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: corrupt) }
        try TestImages.data("photos/rocket.jpg").prefix(20).write(to: corrupt)
        let frames = try await ChildProcess.run("webimage", ["frames", corrupt.path, "-o", missingFolder])
        #expect(frames.status == 1)
        let lines = frames.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("\(corrupt.path): corrupt jpeg data") == true, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: missingFolder))
    }

    @Test func convertWritesTheAskedFormatAndRefusesBadOptions() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await ChildProcess.run(
            "webimage", ["convert", Self.path("sdwebimage/TestImage.png"), output.path, "--quality", "50"]
        )
        #expect(result.status == 0, "\(result.standardError)")
        let image = try TestImages.decoded(try Data(contentsOf: output))
        #expect(image.format == .png && image.pixelWidth == 300 && image.hasAlpha)

        let badSize = try await ChildProcess.run("webimage", ["convert", Self.path("photos/rocket.jpg"), output.path, "--thumbnail", "big"])
        #expect(badSize.status != 0 && badSize.standardError.contains("WIDTHxHEIGHT"))
        let badFormat = try await ChildProcess.run("webimage", ["convert", Self.path("photos/rocket.jpg"), "/tmp/out.unknown"])
        #expect(badFormat.status != 0 && badFormat.standardError.contains("output format"))
    }

    @Test func formatOptionOverridesTheOutputExtension() async throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await ChildProcess.run("webimage", ["convert", Self.path("photos/rocket.jpg"), output.path, "--format", "webp"])
        #expect(result.status == 0, "\(result.standardError)")
        let written = try Data(contentsOf: output)
        #expect(ImageFormat(sniffing: written) == .webP)
        let image = try TestImages.decoded(written)
        #expect(image.format == .webP && image.pixelWidth == 640 && image.pixelHeight == 427)

        // An output without an extension takes its format from --format alone.
        let bare = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: bare) }
        let jpeg = try await ChildProcess.run("webimage", ["convert", Self.path("sdwebimage/TestImage.png"), bare.path, "--format", "jpeg"])
        #expect(jpeg.status == 0, "\(jpeg.standardError)")
        #expect(ImageFormat(sniffing: try Data(contentsOf: bare)) == .jpeg)

        let unknown = try await ChildProcess.run("webimage", ["convert", Self.path("photos/rocket.jpg"), output.path, "--format", "bogus"])
        #expect(unknown.status != 0 && unknown.standardError.contains("output format"))
    }

    @Test func qualityChangesJPEGOutput() async throws {
        let source = try TestImages.decoded(try TestImages.data("photos/astronaut.png"))
        var sizes: [Int] = []
        var errors: [Double] = []
        for quality in ["10", "90"] {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString).jpg")
            defer { try? FileManager.default.removeItem(at: output) }
            let result = try await ChildProcess.run("webimage", ["convert", Self.path("photos/astronaut.png"), output.path, "--quality", quality])
            #expect(result.status == 0, "\(result.standardError)")
            let written = try Data(contentsOf: output)
            let image = try TestImages.decoded(written)
            #expect(image.format == .jpeg && image.pixelWidth == 512 && image.pixelHeight == 512)
            sizes.append(written.count)
            errors.append(try PixelDifference(image, source).mean)
        }
        // Quality 10 is smaller and further from the source than quality 90.
        #expect(sizes.count == 2 && sizes[0] < sizes[1], "\(sizes)")
        #expect(errors.count == 2 && errors[0] > errors[1], "\(errors)")

        let refused = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: refused) }
        let outOfRange = try await ChildProcess.run("webimage", ["convert", Self.path("photos/rocket.jpg"), refused.path, "--quality", "0"])
        #expect(outOfRange.status != 0 && outOfRange.standardError.contains("1 to 100"))
        #expect(!FileManager.default.fileExists(atPath: refused.path))
    }

    /// `--interlace` (progressive JPEG: SOF2; Adam7 PNG: IHDR's interlace byte), `--colors`
    /// (a palette PNG), `--effort` (other WebP bytes), each seen in the file written.
    @Test func encoderFlagsShowInTheFileWritten() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func convert(_ output: String, _ flags: [String]) async throws -> [UInt8] {
            let path = folder.appendingPathComponent(output).path
            let result = try await ChildProcess.run("webimage", ["convert", Self.path("photos/astronaut.png"), path, "--thumbnail", "128x128"] + flags)
            #expect(result.status == 0, "\(result.standardError)")
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        let progressive = try await convert("progressive.jpg", ["--progressive"])
        #expect(EncoderKnobsTests.frameMarker(Data(progressive)) == 0xC2)
        #expect(try await convert("interlaced.png", ["--interlace"])[28] == 1)
        let palette = try await convert("palette.png", ["--colors", "16"])
        #expect(palette[25] == 3 && palette[24] == 4)
        #expect(try await convert("low.webp", ["--effort", "0"]) != (try await convert("high.webp", ["--effort", "6"])))
        let refused = try await ChildProcess.run("webimage", ["convert", Self.path("photos/rocket.jpg"), folder.appendingPathComponent("x.png").path, "--colors", "1"])
        #expect(refused.status != 0 && refused.standardError.contains("2 to 256"))
    }
}

/// `webimage fetch`, `prefetch` and `cache`, each run as a user runs them, on a cache folder of their own.
@Suite(.offThePool) struct CacheCommandLineTests {
    @Test func cacheCommandsOnAFolderThatCannotBeMadeFailInOneLine() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        // A file where the cache directory should be: no folder can be made under it.
        let blocker = scratch.path + "/not-a-folder"
        try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
        for action in ["stats", "clean", "clear"] {
            let result = try await ChildProcess.run("webimage", ["cache", action, "--cache-dir", blocker])
            #expect(result.status == 1)
            #expect(result.standardError == "\(blocker)/default: cannot use this cache folder (it cannot be made or written)\n")
        }
        let path = try await ChildProcess.run("webimage", ["cache", "path", "--cache-dir", blocker])
        #expect(path.status == 0 && path.standardOutput == "\(blocker)/default\n")
    }

    @Test func fetchSaysWhereEachImageCameFromAndWritesIt() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let image = CommandLineToolTests.path("photos/rocket.jpg")
        let first = try await ChildProcess.run("webimage", ["fetch", image, "--cache-dir", scratch.path])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.hasPrefix("\(image): file jpeg 640x427 112525 bytes"), "\(first.standardOutput)")
        let second = try await ChildProcess.run("webimage", ["fetch", image, image, "--cache-dir", scratch.path])
        let lines = second.standardOutput.split(separator: "\n")
        #expect(lines.count == 2 && lines[0].contains(": disk jpeg 640x427") && lines[1].contains(": memory jpeg 640x427"), "\(lines)")

        let output = scratch.path + "/thumb.webp"
        let thumbnail = try await ChildProcess.run(
            "webimage", ["fetch", image, "--thumbnail", "100x100", "--format", "webp", "-o", output, "--cache-dir", scratch.path]
        )
        #expect(thumbnail.status == 0 && thumbnail.standardOutput.contains(": disk jpeg 100x67"), "\(thumbnail.standardOutput)")
        let written = try TestImages.decoded(try Data(contentsOf: URL(fileURLWithPath: output)))
        #expect(written.format == .webP && written.pixelWidth == 100)

        let bypass = try await ChildProcess.run("webimage", ["fetch", image, "--no-cache", "--cache-dir", scratch.path])
        #expect(bypass.standardOutput.contains(": file jpeg"))
    }

    @Test func fetchErrorsAreOneLineEachWithTheURL() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let missing = scratch.path + "/missing.png"
        let result = try await ChildProcess.run("webimage", ["fetch", missing, CommandLineToolTests.path("sdwebimage/TestImage.png"), "--cache-dir", scratch.path])
        #expect(result.status == 1)
        #expect(result.standardError == "\(missing): no such file\n", "\(result.standardError)")
        #expect(result.standardOutput.contains("TestImage.png: file png 300x300"))

        let intoMissingFolder = try await ChildProcess.run(
            "webimage", ["fetch", CommandLineToolTests.path("sdwebimage/TestImage.png"), "-o", scratch.path + "/no/such/folder/x.png", "--cache-dir", scratch.path]
        )
        #expect(intoMissingFolder.status == 1 && intoMissingFolder.standardError.split(separator: "\n").count == 1)
        #expect(intoMissingFolder.standardError.contains("no such folder"), "\(intoMissingFolder.standardError)")

        let badOption = try await ChildProcess.run("webimage", ["fetch", "x.png", "--options", "bogus"])
        #expect(badOption.status == 64 && badOption.standardError.contains("unknown option bogus"))
    }

    @Test func prefetchFillsTheDiskCacheAndCacheCommandsReportAndEmptyIt() async throws {
        let scratch = try ScratchFolder()
        defer { scratch.remove() }
        let list = scratch.path + "/urls.txt"
        let files = ["sdwebimage/TestImage.png", "sdwebimage/TestImage.jpg", "photos/rocket.jpg"].map(CommandLineToolTests.path)
        try ("# three images\n" + files.joined(separator: "\n") + "\n\n").write(toFile: list, atomically: true, encoding: .utf8)
        let prefetch = try await ChildProcess.run("webimage", ["prefetch", "--from-file", list, "--cache-dir", scratch.path])
        #expect(prefetch.status == 0, "\(prefetch.standardError)")
        #expect(prefetch.standardOutput.contains("3/3") && prefetch.standardOutput.contains("prefetched 3 of 3, 0 failed"))

        let stats = try await ChildProcess.run("webimage", ["cache", "stats", "--cache-dir", scratch.path])
        let expectedBytes = try files.reduce(0) { $0 + (try Data(contentsOf: URL(fileURLWithPath: $1)).count) }
        #expect(stats.standardOutput == "\(scratch.path)/default: 3 entries, \(expectedBytes) bytes\n", "\(stats.standardOutput)")
        let fetch = try await ChildProcess.run("webimage", ["fetch", files[2], "--cache-dir", scratch.path])
        #expect(fetch.standardOutput.contains(": disk jpeg 640x427"))

        let path = try await ChildProcess.run("webimage", ["cache", "path", "--namespace", "other", "--cache-dir", scratch.path])
        #expect(path.standardOutput == "\(scratch.path)/other\n")
        let clear = try await ChildProcess.run("webimage", ["cache", "clear", "--cache-dir", scratch.path])
        #expect(clear.status == 0)
        let empty = try await ChildProcess.run("webimage", ["cache", "stats", "--cache-dir", scratch.path])
        #expect(empty.standardOutput.contains(": 0 entries, 0 bytes"))
    }
}

/// `webimage info` and `convert --hdr` on HDR sources.
@Suite(.offThePool) struct HDRCommandLineTests {
    @Test(arguments: [
        ("sdwebimage/TestHDR.avif", "avif 2048x858 frames=1 loop=0 bits=10 primaries=BT.2020 transfer=PQ range=limited icc=no hdr=yes headroom=4.93"),
        ("sdwebimage/TestHDR.jpeg", "jpeg 1662x2493 frames=1 loop=0 bits=8 primaries=unspecified transfer=unspecified range=full icc=yes gainmap=1662x2493 hdr=yes headroom=16.00"),
        // The map's metadata as ISO 21496-1's record alone.
        ("hdr/TestHDR-ultrahdr-iso.jpg", "jpeg 600x400 frames=1 loop=0 bits=8 primaries=unspecified transfer=unspecified range=full icc=yes gainmap=600x400 hdr=yes headroom=49.26"),
    ])
    func infoPrintsTheColourAnHDRFileDeclares(file: String, line: String) async throws {
        let result = try await ChildProcess.run("webimage", ["info", TestImages.url(file).path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasSuffix("\(file): \(line)\n"), "\(result.standardOutput)")
    }

    @Test func convertToneMapsByDefaultAndKeepsHDRWithHDRKeep() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-hdr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = TestImages.url("sdwebimage/TestHDR.heic").path
        let sdr = folder.appendingPathComponent("sdr.avif").path
        let kept = folder.appendingPathComponent("kept.avif").path
        let first = try await ChildProcess.run("webimage", ["convert", source, sdr, "--thumbnail", "256x256"])
        let second = try await ChildProcess.run("webimage", ["convert", source, kept, "--thumbnail", "256x256", "--hdr", "keep"])
        #expect(first.status == 0 && second.status == 0, "\(first.standardError) \(second.standardError)")
        let sdrInfo = try ImageHeader(probing: Data(contentsOf: URL(fileURLWithPath: sdr))).colorInfo
        let keptInfo = try ImageHeader(probing: Data(contentsOf: URL(fileURLWithPath: kept))).colorInfo
        #expect(!sdrInfo.isHighDynamicRange && sdrInfo.bitsPerComponent == 8, "\(sdrInfo)")
        #expect(keptInfo.transfer == .pq && keptInfo.primaries == .bt2020 && keptInfo.bitsPerComponent == 12, "\(keptInfo)")
        let bad = try await ChildProcess.run("webimage", ["convert", source, sdr, "--hdr", "maybe"])
        #expect(bad.status == 64)
    }

    /// A watermark that cannot be had stops `serve` before it listens, naming the setting: a file
    /// that is not there, a URL whose origin has no image (fetched at start).
    @Test func serveWithAWatermarkItCannotHaveDoesNotStartAndNamesTheSetting() async throws {
        let missing = try await ChildProcess.run("webimage", ["serve", "--bind", "127.0.0.1:0", "--watermark-path", "/nonexistent/mark.png"])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("WEBIMAGE_WATERMARK_PATH (--watermark-path): /nonexistent/mark.png cannot be read"), "\(missing.standardError)")
        let server = try await TestServer.start()
        let notThere = server.url("/status/404").absoluteString
        let unfetched = try await ChildProcess.run("webimage", [
            "serve", "--bind", "127.0.0.1:0", "--allow-loopback-source-addresses", "--watermark-url", notThere,
        ])
        await server.shutdown()
        #expect(unfetched.status != 0)
        #expect(unfetched.standardError.contains("WEBIMAGE_WATERMARK_URL (--watermark-url): \(notThere) could not be fetched"), "\(unfetched.standardError)")
    }
}
