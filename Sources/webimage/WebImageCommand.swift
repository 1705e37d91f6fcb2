import ArgumentParser
import Foundation
import WebImage

@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Decode, inspect and convert images with swift-webimage.",
        subcommands: [InfoCommand.self, ConvertCommand.self, FramesCommand.self, FetchCommand.self, PrefetchCommand.self, CacheCommand.self]
    )
}
