import ArgumentParser

/// `hoard`: make thumbnails of many images and keep them in a cache, so that a second run is
/// nearly free; and look after that cache.
@main
struct HoardCommand: AsyncParsableCommand {
    static let version = "0.2.0"

    static let configuration = CommandConfiguration(
        commandName: "hoard",
        abstract: "Make thumbnails of many images, and keep them in a cache so that reruns are nearly free.",
        version: version,
        subcommands: [ThumbnailsCommand.self, CacheCommand.self, ServeCommand.self, URLCommand.self]
    )
}
