import Foundation
import ImageEngine
import Testing
import WebImage
import WebImageTestServer
import WebImageTestSupport

extension Heavy {
    /// `webimage convert` on many inputs, run as a user runs it: a child process, real files in a
    /// scratch folder of the test's own, a real HTTP server.
    @Suite(.offThePool) struct BatchConvertTests {
        /// A scratch folder holding copies of test images under the names given.
        struct Tree {
            let scratch: ScratchFolder
            var path: String { scratch.path }

            init(_ files: [String: String] = [:]) throws {
                scratch = try ScratchFolder()
                for (name, image) in files { try add(name, from: image) }
            }

            func add(_ name: String, from image: String) throws {
                let url = URL(fileURLWithPath: path + "/" + name)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try TestImages.data(image).write(to: url)
            }

            func data(_ name: String) throws -> Data {
                try Data(contentsOf: URL(fileURLWithPath: path + "/" + name))
            }

            /// Every file under `folder`, hidden ones too, as paths relative to it, sorted.
            func files(under folder: String) -> [String] {
                (FileManager.default.subpaths(atPath: path + "/" + folder) ?? []).filter { relative in
                    var isFolder: ObjCBool = false
                    return FileManager.default.fileExists(atPath: path + "/" + folder + "/" + relative, isDirectory: &isFolder) && !isFolder.boolValue
                }.sorted()
            }

            func remove() { scratch.remove() }
        }

        static func lines(_ text: String) -> [String] {
            text.split(separator: "\n").map(String.init)
        }

        @Test func manyInputsGoIntoTheFolderEachInItsOwnFormat() async throws {
            let tree = try Tree([
                "rocket.jpg": "photos/rocket.jpg", "TestImage.png": "sdwebimage/TestImage.png", "still.webp": "sdwebimage/TestImageStatic.webp",
                "no-extension": "sdwebimage/TestImage.gif",
            ])
            defer { tree.remove() }
            let inputs = ["rocket.jpg", "TestImage.png", "still.webp", "no-extension"].map { tree.path + "/" + $0 }
            let result = try await ChildProcess.run("webimage", ["convert"] + inputs + ["-o", tree.path + "/out", "--thumbnail", "100x100", "--jobs", "2"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.isEmpty)
            let lines = Self.lines(result.standardOutput)
            // Not a terminal: one plain done/total line per image, then the summary.
            #expect(Array(lines.prefix(4)) == ["1/4", "2/4", "3/4", "4/4"], "\(lines)")
            #expect(lines.count == 5 && lines[4].hasPrefix("converted 4, failed 0, skipped 0, "), "\(lines)")
            #expect(!result.standardOutput.contains("\r"))
            // A name without an extension: the format its bytes tell.
            #expect(tree.files(under: "out") == ["TestImage.png", "no-extension.gif", "rocket.jpg", "still.webp"])
            let jpeg = try TestImages.decoded(try tree.data("out/rocket.jpg"))
            #expect(jpeg.format == .jpeg && jpeg.pixelWidth == 100 && jpeg.pixelHeight == 67)
            let png = try TestImages.decoded(try tree.data("out/TestImage.png"))
            #expect(png.format == .png && png.pixelWidth == 100 && png.hasAlpha)
            #expect(try TestImages.decoded(try tree.data("out/still.webp")).format == .webP)
        }

        @Test func aFolderGivesItsImagesAndRecursiveItsSubfoldersKeptUnderTheOutputFolder() async throws {
            let tree = try Tree([
                "in/a.jpg": "photos/rocket.jpg", "in/.hidden.jpg": "photos/rocket.jpg", "in/sub/b.png": "sdwebimage/TestImage.png",
                "in/sub/deeper/c.jpg": "sdwebimage/TestImage.jpg",
            ])
            defer { tree.remove() }
            try Data("not an image".utf8).write(to: URL(fileURLWithPath: tree.path + "/in/notes.txt"))
            let flat = try await ChildProcess.run("webimage", ["convert", tree.path + "/in", "-o", tree.path + "/flat", "--format", "webp"])
            #expect(flat.status == 0, "\(flat.standardError)")
            #expect(tree.files(under: "flat") == ["a.webp"])
            #expect(flat.standardOutput.contains("converted 1, failed 0, skipped 0"))

            let deep = try await ChildProcess.run("webimage", ["convert", tree.path + "/in", "--recursive", "-o", tree.path + "/deep", "--format", "webp"])
            #expect(deep.status == 0, "\(deep.standardError)")
            #expect(tree.files(under: "deep") == ["a.webp", "sub/b.webp", "sub/deeper/c.webp"])
            #expect(deep.standardOutput.contains("converted 3, failed 0, skipped 0"))
            let nested = try TestImages.decoded(try tree.data("deep/sub/deeper/c.webp"))
            #expect(nested.format == .webP && nested.pixelWidth == 80 && nested.pixelHeight == 60)
        }

        @Test func aPatternNamesEachOutputAndItsExtensionPicksTheFormat() async throws {
            let tree = try Tree(["in/a.jpg": "photos/rocket.jpg", "in/b.png": "sdwebimage/TestImage.png"])
            defer { tree.remove() }
            let inputs = [tree.path + "/in/a.jpg", tree.path + "/in/b.png"]
            // Relative, as vipsthumbnail's -o: beside each input.
            let beside = try await ChildProcess.run("webimage", ["convert"] + inputs + ["--output", "tn_%s.webp", "--thumbnail", "64x64"])
            #expect(beside.status == 0, "\(beside.standardError)")
            #expect(tree.files(under: "in") == ["a.jpg", "b.png", "tn_a.webp", "tn_b.webp"])
            #expect(try TestImages.decoded(try tree.data("in/tn_b.webp")).format == .webP)

            // %e keeps each input's extension, so its format.
            let kept = try await ChildProcess.run("webimage", ["convert"] + inputs + ["--output", tree.path + "/out/%s-%e.%e"])
            #expect(kept.status == 0, "\(kept.standardError)")
            #expect(tree.files(under: "out") == ["a-jpg.jpg", "b-png.png"])
            #expect(try TestImages.decoded(try tree.data("out/a-jpg.jpg")).format == .jpeg)
            #expect(try TestImages.decoded(try tree.data("out/b-png.png")).format == .png)

            // %d is the input's folder; --format wins over the pattern's extension.
            let forced = try await ChildProcess.run("webimage", ["convert", inputs[0], "--output", "%d/forced_%s.png", "--format", "gif"])
            #expect(forced.status == 0, "\(forced.standardError)")
            #expect(ImageFormat(sniffing: try tree.data("in/forced_a.png")) == .gif)
        }

        @Test func aGlobTheShellLeftIsExpandedAndOneMatchingNothingIsAFailure() async throws {
            let tree = try Tree(["in/a.jpg": "photos/rocket.jpg", "in/b.jpg": "sdwebimage/TestImage.jpg", "in/c.png": "sdwebimage/TestImage.png"])
            defer { tree.remove() }
            let result = try await ChildProcess.run("webimage", ["convert", tree.path + "/in/*.jpg", tree.path + "/in/*.gif", "-o", tree.path + "/out", "--format", "png"])
            #expect(result.status == 1)
            #expect(tree.files(under: "out") == ["a.png", "b.png"])
            #expect(result.standardError == "\(tree.path)/in/*.gif: no file matches\n")
            #expect(result.standardOutput.contains("converted 2, failed 1, skipped 0"))
        }

        @Test func standardInputListsPathsAndURLsFetchedOnceEach() async throws {
            try await withOrigin { server in
                let tree = try Tree(["TestImage.png": "sdwebimage/TestImage.png"])
                defer { tree.remove() }
                let rocket = server.url("/images/photos/rocket.jpg").absoluteString
                let redirected = server.url("/redirect/1/images/sdwebimage/TestImage.jpg").absoluteString
                let list = "\(tree.path)/TestImage.png\n\n\(rocket)\n  \(redirected)\n\(rocket)\n"
                let result = try await ChildProcess.run("webimage", ["convert", "-", "-o", tree.path + "/out", "--thumbnail", "50x50"], input: Data(list.utf8))
                #expect(result.status == 0, "\(result.standardError)")
                #expect(Self.lines(result.standardOutput).contains("3/3"))
                #expect(tree.files(under: "out") == ["TestImage.jpg", "TestImage.png", "rocket.jpg"])
                let fetched = try TestImages.decoded(try tree.data("out/rocket.jpg"))
                #expect(fetched.format == .jpeg && fetched.pixelWidth == 50)
                // Listed twice, fetched once.
                #expect(server.requestCount("/images/photos/rocket.jpg") == 1)
            }
        }

        @Test func aFailingInputIsOneLineAndTheOthersAreStillWritten() async throws {
            try await withOrigin { server in
                let tree = try Tree(["good.jpg": "photos/rocket.jpg", "alsoGood.png": "sdwebimage/TestImage.png"])
                defer { tree.remove() }
                try TestImages.data("photos/rocket.jpg").prefix(20).write(to: URL(fileURLWithPath: tree.path + "/corrupt.jpg"))
                let missing = tree.path + "/missing.png"
                let notFound = server.url("/status/404").absoluteString
                let inputs = [tree.path + "/good.jpg", tree.path + "/corrupt.jpg", missing, notFound, tree.path + "/alsoGood.png"]
                let result = try await ChildProcess.run("webimage", ["convert"] + inputs + ["-o", tree.path + "/out", "--format", "jpeg"])
                #expect(result.status == 1)
                let errors = Self.lines(result.standardError)
                #expect(errors.count == 3, "\(errors)")
                #expect(errors.contains { $0.hasPrefix(tree.path + "/corrupt.jpg: corrupt jpeg data") }, "\(errors)")
                #expect(errors.contains("\(missing): no such file"), "\(errors)")
                #expect(errors.contains { $0.hasPrefix(notFound + ": ") && $0.contains("404") }, "\(errors)")
                #expect(tree.files(under: "out") == ["alsoGood.jpg", "good.jpg"])
                #expect(Self.lines(result.standardOutput).last?.hasPrefix("converted 2, failed 3, skipped 0, ") == true, "\(result.standardOutput)")
            }
        }

        @Test func skipExistingSkipsOutputsNotOlderThanTheirInputs() async throws {
            let tree = try Tree(["a.jpg": "photos/rocket.jpg", "b.jpg": "sdwebimage/TestImage.jpg", "c.png": "sdwebimage/TestImage.png"])
            defer { tree.remove() }
            let arguments = ["convert", tree.path + "/a.jpg", tree.path + "/b.jpg", tree.path + "/c.png", "-o", tree.path + "/out"]
            let first = try await ChildProcess.run("webimage", arguments + ["--skip-existing"])
            #expect(first.status == 0 && first.standardOutput.contains("converted 3, failed 0, skipped 0"), "\(first.standardOutput)")
            // The outputs dated an hour back, b's input after them: only b is out of date.
            let hourAgo = Date(timeIntervalSinceNow: -3600)
            for name in ["out/a.jpg", "out/b.jpg", "out/c.png"] {
                try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: tree.path + "/" + name)
            }
            for name in ["a.jpg", "c.png"] {
                try FileManager.default.setAttributes([.modificationDate: hourAgo.addingTimeInterval(-60)], ofItemAtPath: tree.path + "/" + name)
            }
            let second = try await ChildProcess.run("webimage", arguments + ["--skip-existing"])
            #expect(second.status == 0)
            #expect(second.standardOutput.contains("converted 1, failed 0, skipped 2"), "\(second.standardOutput)")
            func modified(_ name: String) throws -> Date? {
                try FileManager.default.attributesOfItem(atPath: tree.path + "/" + name)[.modificationDate] as? Date
            }
            // Untouched: still dated an hour back (to the file system's precision).
            #expect(try modified("out/a.jpg").map { abs($0.timeIntervalSince(hourAgo)) < 1 } == true)
            #expect(try modified("out/b.jpg").map { $0 > hourAgo } == true)

            let all = try await ChildProcess.run("webimage", arguments)
            #expect(all.standardOutput.contains("converted 3, failed 0, skipped 0"), "\(all.standardOutput)")
        }

        @Test(arguments: [
            ["--thumbnail", "120x90", "--quality", "70"],
            ["--transform", "resize=90x90,cover;round=10", "--format", "png"],
            ["--thumbnail", "200x200", "--format", "webp", "--quality", "60"],
            ["--thumbnail", "150x150", "--keep-metadata"],
        ])
        func aBatchWritesTheBytesEachSingleConversionWrites(options: [String]) async throws {
            let images = [
                "rocket.jpg": "photos/rocket.jpg", "astronaut.png": "photos/astronaut.png", "Landscape_6.jpg": "exif-orientation/Landscape_6.jpg",
                "TestImage.png": "sdwebimage/TestImage.png", "animated.webp": "sdwebimage/TestImageAnimated.webp",
                "hubble.jpg": "photos/hubble_deep_field.jpg",
            ]
            let tree = try Tree(images)
            defer { tree.remove() }
            let inputs = images.keys.sorted().map { tree.path + "/" + $0 }
            // More jobs than cores, so that conversions overlap.
            let batch = try await ChildProcess.run("webimage", ["convert"] + inputs + ["-o", tree.path + "/batch", "--jobs", "4"] + options)
            #expect(batch.status == 0, "\(batch.standardError)")
            let written = tree.files(under: "batch")
            #expect(written.count == images.count, "\(written)")
            for name in written {
                let input = try #require(inputs.first { ($0 as NSString).lastPathComponent.hasPrefix((name as NSString).deletingPathExtension + ".") })
                let single = tree.path + "/single-" + name
                let alone = try await ChildProcess.run("webimage", ["convert", input, single] + options)
                #expect(alone.status == 0, "\(alone.standardError)")
                #expect(try tree.data("batch/" + name) == tree.data("single-" + name), "\(name) differs")
            }
        }

        /// `--keep-metadata` keeps the EXIF (orientation 1: the pixels are written upright), XMP,
        /// IPTC and the profile of the pixels; `--strip`, the default, writes none.
        @Test func keepMetadataKeepsItAndStripIsTheDefault() async throws {
            let names = ["icc.jpg", "hubble.jpg", "turned.jpg"]
            let tree = try Tree([
                "icc.jpg": "sdwebimage/TestICCProfile.jpg", "hubble.jpg": "photos/hubble_deep_field.jpg",
                "turned.jpg": "exif-orientation/Landscape_6.jpg",
            ])
            defer { tree.remove() }
            let inputs = names.map { tree.path + "/" + $0 }
            for (flags, folder) in [(["--keep-metadata"], "kept"), ([], "default"), (["--strip"], "stripped")] {
                let result = try await ChildProcess.run("webimage", ["convert"] + inputs + ["-o", tree.path + "/" + folder, "--thumbnail", "200x200"] + flags)
                #expect(result.status == 0, "\(result.standardError)")
            }
            for name in names {
                let original = try WrittenMetadata(try tree.data(name))
                let kept = try WrittenMetadata(try tree.data("kept/" + name))
                #expect(kept.exif != nil && kept.orientation == 1, "\(name)")
                #expect(kept.xmp == original.xmp && kept.iptc == original.iptc, "\(name)")
                #expect(try WrittenMetadata(try tree.data("default/" + name)).isEmpty, "\(name)")
                #expect(try tree.data("default/" + name) == tree.data("stripped/" + name), "\(name)")
            }
            let icc = try WrittenMetadata(try tree.data("kept/icc.jpg"))
            #expect(icc.exifContains("Adobe Photoshop CS5 Windows") && icc.iptc != nil)
            // Converted to sRGB at decode: the profile written is sRGB's; hubble's is sRGB already.
            let sRGB = try Vips.builtInProfile("srgb")
            #expect(icc.iccProfile == sRGB)
            let hubble = (original: try WrittenMetadata(try tree.data("hubble.jpg")), kept: try WrittenMetadata(try tree.data("kept/hubble.jpg")))
            #expect(hubble.original.iccProfile != nil && hubble.kept.iccProfile == hubble.original.iccProfile)
            let turned = try TestImages.decoded(try tree.data("kept/turned.jpg"))
            #expect(turned.pixelWidth == 200 && turned.pixelHeight == 133)
        }

        @Test func anOutputOverItsInputAndTwoInputsWithOneOutputAreRefused() async throws {
            let tree = try Tree(["a/x.jpg": "photos/rocket.jpg", "b/x.jpg": "sdwebimage/TestImage.jpg"])
            defer { tree.remove() }
            let result = try await ChildProcess.run("webimage", ["convert", tree.path + "/a/x.jpg", tree.path + "/b/x.jpg", "-o", tree.path + "/out"])
            #expect(result.status == 1)
            #expect(result.standardError == "\(tree.path)/b/x.jpg: the same output as \(tree.path)/a/x.jpg\n")
            #expect(try TestImages.decoded(try tree.data("out/x.jpg")).pixelWidth == 640)

            let before = try tree.data("a/x.jpg")
            let inPlace = try await ChildProcess.run("webimage", ["convert", tree.path + "/a/x.jpg", "-o", tree.path + "/a", "--thumbnail", "10x10"])
            #expect(inPlace.status == 1)
            #expect(inPlace.standardError == "\(tree.path)/a/x.jpg: the output would replace the input\n")
            #expect(try tree.data("a/x.jpg") == before)
        }

        @Test(arguments: [
            (["a.jpg", "b.jpg", "c.jpg"], "give IN OUT, or -o DIR or --output PATTERN"),
            (["a.jpg", "-o", "out", "--jobs", "0"], "--jobs takes 1 or more"),
            (["a.jpg", "-o", "out", "--output", "%s.png"], "not both"),
            (["a.jpg", "-o", "out", "--strip", "--keep-metadata"], "had already been set with flag '--strip'"),
        ])
        func usageErrorsExitWith64(arguments: [String], message: String) async throws {
            let result = try await ChildProcess.run("webimage", ["convert"] + arguments)
            #expect(result.status == 64)
            #expect(result.standardError.contains(message), "\(result.standardError)")
        }

        /// Under a pseudo-terminal (script(1) gives the child one), the bar is redrawn in place.
        @Test func theProgressBarIsDrawnOnATerminal() async throws {
            let tree = try Tree(["a.jpg": "photos/rocket.jpg", "b.png": "sdwebimage/TestImage.png", "c.jpg": "sdwebimage/TestImage.jpg"])
            defer { tree.remove() }
            let command = [try ChildProcess.executable("webimage").path, "convert", tree.path + "/a.jpg", tree.path + "/b.png", tree.path + "/c.jpg", "-o", tree.path + "/out"]
            // An empty standard input of its own: script(1) gives up when it has none (as under CI).
            let result = try await ChildProcess.run(
                executable: URL(fileURLWithPath: "/usr/bin/script"), ["-qec", command.joined(separator: " "), "/dev/null"], input: Data()
            )
            #expect(result.status == 0, "\(result.standardOutput)")
            let screen = result.standardOutput
            // The last drawing: full bar, count, rate; then the summary on a line of its own.
            #expect(screen.contains("\r[" + String(repeating: "#", count: 30) + "] 3/3  "), "\(screen.debugDescription)")
            #expect(screen.contains(" images/s"), "\(screen.debugDescription)")
            #expect(!screen.contains("\n1/3"), "\(screen.debugDescription)")
            #expect(Self.lines(screen.replacingOccurrences(of: "\r", with: "")).last?.hasPrefix("converted 3, failed 0, skipped 0") == true, "\(screen.debugDescription)")
            #expect(tree.files(under: "out") == ["a.jpg", "b.png", "c.jpg"])
        }

        /// SIGTERM in the middle of a run: the outputs there are whole, and no temporary file is left.
        /// A URL whose body trickles a byte a second keeps the run going until the signal, however
        /// slowly this test is scheduled.
        @Test func anInterruptedRunLeavesOnlyWholeOutputs() async throws {
            try await withOrigin { server in
                let tree = try Tree()
                defer { tree.remove() }
                let count = 8
                for index in 0..<count { try tree.add(String(format: "in/%03d.jpg", index), from: "photos/hubble_deep_field.jpg") }
                let endless = server.url("/images/photos/rocket.jpg?chunk=1&chunkDelay=1000").absoluteString
                let process = Process()
                process.executableURL = try ChildProcess.executable("webimage")
                process.arguments = ["convert", endless, tree.path + "/in", "-o", tree.path + "/out", "--format", "png", "--jobs", "2"]
                process.standardError = FileHandle.nullDevice
                let output = try ChildLaunch.serialized { () throws -> Pipe in
                    let output = Pipe()
                    process.standardOutput = output
                    try process.run()
                    return output
                }
                // Every file converted (its line read): only the URL is left. Then the signal.
                let expected = "\(count)/\(count + 1)\n"
                let printed = await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        var seen = Data()
                        while !String(decoding: seen, as: UTF8.self).contains(expected) {
                            let chunk = output.fileHandleForReading.availableData
                            if chunk.isEmpty { break }
                            seen.append(chunk)
                        }
                        continuation.resume(returning: String(decoding: seen, as: UTF8.self))
                    }
                }
                #expect(printed.contains(expected), "\(printed)")
                process.terminate()
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        process.waitUntilExit()
                        continuation.resume()
                    }
                }
                #expect(process.terminationStatus == 128 + SIGTERM)
                let written = tree.files(under: "out")
                #expect(written == (0..<count).map { String(format: "%03d.png", $0) }, "\(written)")
                for name in written {
                    let image = try TestImages.decoded(try tree.data("out/" + name))
                    #expect(image.pixelWidth == 1000 && image.pixelHeight == 872, "\(name)")
                }
            }
        }
    }
}
