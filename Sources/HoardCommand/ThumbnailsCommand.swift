import ArgumentParser
import Foundation
import Hoard

/// `hoard thumbnails`: the batch job.
struct ThumbnailsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Make thumbnails of images (URLs, files or folders) and keep them in the cache.",
        discussion: """
            A second run with the same inputs and settings downloads and decodes nothing: it copies \
            the cached thumbnails. Downloaded originals are cached too, so a rerun with another \
            --size downloads nothing either. Exit status: 0 when every input succeeded, 1 when any \
            failed, 64 for usage errors.
            """)

    @Argument(
        help: ArgumentHelp(
            "Images: http(s) URLs, file URLs, paths, or folders (searched for .jpg, .jpeg, .png).", valueName: "INPUT"))
    var inputs: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A file with one input per line (blank lines and # comments skipped; relative paths are relative to the file); - reads standard input.",
            valueName: "FILE"))
    var list: String?

    @Option(name: .long, help: ArgumentHelp("The longest side of each thumbnail, in pixels.", valueName: "PIXELS"))
    var size: Int

    @Option(
        name: .long,
        help: ArgumentHelp("The folder the thumbnails are written to (created if missing).", valueName: "DIR"))
    var output: String

    @OptionGroup var cacheOptions: CacheOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Inputs in flight at once (downloads); decoding uses at most one per core. Default: cores x 4.",
            valueName: "N"))
    var concurrency: Int?

    @Option(name: .long, help: "auto (PNG when the image has alpha, else JPEG), jpeg or png.")
    var format: OutputFormat = .auto

    @Option(name: .long, help: ArgumentHelp("JPEG quality, 1-100.", valueName: "Q"))
    var quality: Int = 85

    @Option(
        name: .long,
        help:
            "The resampling filter after decode-time downscaling: lanczos3 (the sharpest), catmull-rom (bicubic), bilinear or box."
    )
    var filter: ThumbnailFilter = .lanczos3

    @Option(name: .long, help: ArgumentHelp("Per-download time limit.", valueName: "SECONDS"))
    var timeout: Double = 30

    @Option(
        name: .long,
        help: ArgumentHelp("The largest download accepted; a larger body is cut off with an error.", valueName: "BYTES")
    )
    var maxDownloadBytes: Int = 64 * 1024 * 1024

    @Option(name: .long, help: ArgumentHelp("Redirects followed before giving up.", valueName: "N"))
    var maxRedirects: Int = 5

    @Flag(name: .long, help: "Print the summary and per-input results as JSON on standard output.")
    var json = false

    func validate() throws {
        guard size > 0 else { throw ValidationError("--size must be at least 1 pixel") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        guard maxDownloadBytes > 0 else { throw ValidationError("--max-download-bytes must be positive") }
        guard maxRedirects >= 0 else { throw ValidationError("--max-redirects cannot be negative") }
        if let concurrency, concurrency < 1 { throw ValidationError("--concurrency must be at least 1") }
        guard !inputs.isEmpty || list != nil else { throw ValidationError("give at least one INPUT or --list FILE") }
    }

    func run() async throws {
        var arguments = inputs
        if let list { arguments += try InputList.read(list) }
        let outputDirectory = URL(fileURLWithPath: output, isDirectory: true)
        do {
            if !LocalFile.isDirectory(output) {
                try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            }
        } catch {
            throw RunFailure("cannot create the output folder \(output): \(error.localizedDescription)")
        }
        let hoard = try cacheOptions.openHoard()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let settings = ThumbnailSettings(
            size: size, format: format, quality: quality, filter: filter, outputPath: outputDirectory.path)
        let downloader = Downloader(
            timeout: timeout, maximumBytes: maxDownloadBytes, maximumRedirects: maxRedirects)
        let batch = ThumbnailBatch(
            hoard: hoard, downloader: downloader, settings: settings,
            downloadConcurrency: concurrency ?? cores * 4, decodeConcurrency: min(concurrency ?? cores, cores))
        let summary = await batch.run(InputSource.expand(arguments), progress: Progress.forStandardError())
        try await downloader.shutdown()
        summary.print(json: json, outputDirectory: output)
        if summary.failed > 0 { throw ExitCode(1) }
    }
}

/// What `--format` accepts.
enum OutputFormat: String, ExpressibleByArgument, Sendable, CaseIterable {
    case auto, jpeg, png
}

/// What `--filter` accepts: the library's resampling filters, spelled for the command line.
enum ThumbnailFilter: String, ExpressibleByArgument, Sendable, CaseIterable {
    case lanczos3
    case catmullRom = "catmull-rom"
    case bilinear, box

    var resamplingFilter: Image.ResamplingFilter {
        switch self {
        case .lanczos3: .lanczos3
        case .catmullRom: .catmullRom
        case .bilinear: .bilinear
        case .box: .box
        }
    }
}

/// A failure of the whole run (not of one input): printed and exit status 1.
struct RunFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads `--list`: one input per line, blank lines and `#` comments skipped. Relative paths in a
/// list file are relative to the file's folder (in standard input, to the current folder).
enum InputList {
    static func read(_ path: String) throws -> [String] {
        let data: Data
        do {
            data =
                path == "-"
                ? FileHandle.standardInput.readDataToEndOfFile() : try LocalFile.read(path)
        } catch {
            throw RunFailure("cannot read the list \(path): \(error.localizedDescription)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
            .map { line in
                guard path != "-", !line.contains("://"), !line.hasPrefix("/") else { return line }
                return folder.appendingPathComponent(line).path
            }
    }
}
