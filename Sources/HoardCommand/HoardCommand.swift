import ArgumentParser

/// `hoard`: make thumbnails of many images and keep them in a cache, so that a second run is
/// nearly free; look after that cache; serve resized images over HTTP from it; sign their paths.
@main
struct HoardCommand: AsyncParsableCommand {
    static let version = "0.2.0"

    static let configuration = CommandConfiguration(
        commandName: "hoard",
        abstract: "Thumbnails kept in a cache: make them in batches, serve them over HTTP, look after the cache.",
        discussion: """
            thumbnails makes thumbnails of files, folders and URLs and keeps them, with the \
            originals it downloaded, in a cache folder, so that a rerun is nearly free. cache \
            shows and maintains that folder. serve answers imgproxy-style URLs over HTTP from the \
            same cache, making each variant once; url prints the signed paths it answers.
            """,
        version: version,
        subcommands: [ThumbnailsCommand.self, CacheCommand.self, ServeCommand.self, URLCommand.self]
    )

    /// Without a subcommand: a usage error (exit 64), not the help with success.
    func run() throws {
        throw ValidationError("name a subcommand: thumbnails, cache, serve or url")
    }
}
