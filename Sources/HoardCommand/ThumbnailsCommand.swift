import ArgumentParser
import Foundation
import Hoard
import HoardOriginals
import HoardRedis

/// `hoard thumbnails`: the batch job.
struct ThumbnailsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnails",
        abstract: "Make thumbnails of images (URLs, files or folders) and keep them in the cache.",
        discussion: """
            A second run with the same inputs and settings downloads and decodes nothing: it copies \
            the cached thumbnails. Downloaded originals are cached too, so a rerun with another \
            --size downloads nothing either. Inputs that need the same thumbnail or the same \
            download share one, and so do runs at once on the same --cache.

            With --remote (or $HOARD_REMOTE), machines share the cache through Redis: a thumbnail or \
            original one of them made is a hit for all (copied into the local cache), and while one \
            machine makes a thumbnail or downloads an original, the others wait for it instead of \
            doing it again; they stop waiting after --timeout plus 5 seconds (how long a worker that \
            died may hold a key). The password comes from $HOARD_REMOTE_PASSWORD, never from the \
            command line. A Redis server that fails or does not answer within --remote-timeout is \
            skipped and the run goes on with the local cache (--remote-required makes an unreachable \
            server at the start an error). The summary then adds the values taken from Redis, the \
            waits for another worker and the Redis errors.

            Exit status: 0 when every input succeeded, 1 when any failed (or a required Redis server \
            is unreachable), 64 for usage errors.
            """)

    @Argument(
        help: ArgumentHelp(
            "Images: http(s) URLs, file URLs, paths, or folders (searched for .jpg, .jpeg, .png, .webp, .gif, .avif).",
            valueName: "INPUT"))
    var inputs: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A file with one input per line (blank lines and # comments skipped; relative paths are relative to the file); - reads standard input.",
            valueName: "FILE"))
    var list: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The box each thumbnail fits in, in pixels, 1-1000000: 256 (the longest side) or 256x128 (width by height). A JPEG is capped at 65500, a WebP at 16383.",
            valueName: "PIXELS[xPIXELS]"))
    var size: ThumbnailBox

    @Option(name: .long, help: "fit (inside the box) or fill (cover it, then crop to it around --gravity).")
    var fit: ThumbnailFit = .fit

    @Option(name: .long, help: "What fill keeps: centre, north, south, east, west, ne, nw, se, sw, or smart (where the detail is).")
    var gravity: ThumbnailGravity = .centre

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Output file names: {name} (the input's), {hash} (of the input), {box} (the --size, with -fill and the gravity), {width} and {height} (the thumbnail's), {ext}. Default: {name}-{hash}-{box}.{ext}.",
            valueName: "TEMPLATE"))
    var name = OutputNaming.defaultTemplate

    @Option(
        name: .long,
        help: ArgumentHelp("The folder the thumbnails are written to (created if missing).", valueName: "DIR"))
    var output: String

    @OptionGroup var cacheOptions: CacheOptions

    @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Inputs in flight at once (downloads), 1-1024; decoding uses at most one per core. Default: cores x 4.",
            valueName: "N"))
    var concurrency: Int?

    @Option(
        name: .long,
        help:
            "auto (PNG when some pixel is not opaque, else JPEG), jpeg, png, webp (lossy, alpha kept; lossless when the image has alpha and --quality is 100) or avif (alpha kept)."
    )
    var format: OutputFormat = .auto

    @Option(name: .long, help: ArgumentHelp("JPEG, WebP or AVIF quality, 1-100 (default 85; 60 for AVIF).", valueName: "Q"))
    var quality: Int?

    /// `--quality`, or its default for the format.
    var effectiveQuality: Int { quality ?? (format == .avif ? Image.defaultAVIFQuality : ThumbnailKey.defaultQuality) }

    @Option(
        name: .long,
        help:
            "The resampling filter after decode-time downscaling: lanczos3 (the sharpest), catmull-rom (bicubic), bilinear or box."
    )
    var filter: ThumbnailFilter = .lanczos3

    @Option(
        name: .long,
        help:
            "What happens to a source's colour profile: srgb (convert to sRGB, as viewers assume), keep (keep the values and embed the profile) or ignore (read the values as sRGB)."
    )
    var colour: Image.ColourHandling = .srgb

    @Option(
        name: .long,
        help:
            "How far decode-time downscaling may shrink a source before the filter: faithful (leave the filter a factor of two, as vips and Pillow do) or fast (decode as small as the size allows: faster, less faithful on fine texture; cached apart)."
    )
    var decodeScale: Image.DecodeScale = .faithful

    @Option(
        name: .long, help: ArgumentHelp("Per-download time limit, 0.001-86400 seconds.", valueName: "SECONDS"))
    var timeout: Double = 30

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The largest original accepted, downloaded or local, 1-4294967296 bytes; a larger download is cut off with an error, a larger file is not read.",
            valueName: "BYTES")
    )
    var maxDownloadBytes: Int = 64 * 1024 * 1024

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most pixels decoding one image may allocate, 1-4294967296: a JPEG is checked at the scale it decodes at (an 81 MP photo thumbnailed at 256 px allocates 1.3 MP), other formats at their full size.",
            valueName: "N"))
    var maxPixels: Int = Image.DecodingOptions.defaultMaximumPixelCount

    @Option(name: .long, help: ArgumentHelp("Redirects followed before giving up, 0-100.", valueName: "N"))
    var maxRedirects: Int = 5

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The most directory entries the folder inputs of a run may read between them, 1-1000000000; a folder input past it fails.",
            valueName: "N"))
    var maxFolderEntries: Int = 1_000_000

    @Option(
        name: .long,
        help: ArgumentHelp(
            "When cached originals are checked with their servers: stale (when HTTP caching says they are stale), always (every run, with a conditional request), or never.",
            valueName: "WHEN"))
    var revalidate: RevalidationPolicy = .stale

    @Flag(
        inversion: .prefixedNo,
        help:
            "Keep downloaded originals (default: yes, within --originals-limit), so that a run with another --size or --format downloads nothing and a changed original is found with a 304; --no-keep-originals downloads them for each new thumbnail."
    )
    var keepOriginals = true

    @Flag(name: .long, help: "Print the summary and per-input results as JSON on standard output.")
    var json = false

    /// The ranges the numeric options accept, stated in their help.
    enum Limits {
        static let size = 1...1_000_000
        static let quality = 1...100
        static let concurrency = 1...1024
        static let timeout = 0.001...Downloader.maximumTimeout
        static let maxDownloadBytes = 1...(4 * 1024 * 1024 * 1024)
        static let maxRedirects = 0...100
        static let maxFolderEntries = 1...1_000_000_000
        static let maxPixels = 1...(1 << 32)
    }

    /// The largest `--list` file (or standard input) read.
    static let maximumListBytes = 64 * 1024 * 1024

    /// How much longer than a download's time limit a worker holds its lease on a key in the
    /// shared tier: time to decode, resize, encode and store. A worker killed meanwhile delays
    /// the others that long, at most.
    static let fetchLeaseMargin = 5.0

    /// How long a fetch holds its lease on a key in the shared tier, in seconds: `--timeout` plus
    /// ``fetchLeaseMargin``, at most a day (what ``Hoard/Configuration/fetchLeaseDuration`` accepts).
    var fetchLeaseDuration: Double { min(timeout + Self.fetchLeaseMargin, Downloader.maximumTimeout) }

    func validate() throws {
        if fit == .fit, gravity != .centre { throw ValidationError("--gravity applies to --fit fill only") }
        guard OutputNaming(template: name) != nil else {
            throw ValidationError(
                "--name \(name) is not a file name template (placeholders {name} {hash} {box} {width} {height} {ext}; no /)")
        }
        if let quality { try Self.check("--quality", quality, in: Limits.quality) }
        if let concurrency { try Self.check("--concurrency", concurrency, in: Limits.concurrency) }
        // A closed range of Double holds no NaN and no infinity.
        guard Limits.timeout.contains(timeout) else {
            throw ValidationError("--timeout must be between 0.001 and 86400 seconds, not \(timeout)")
        }
        try Self.check("--max-download-bytes", maxDownloadBytes, in: Limits.maxDownloadBytes, unit: "bytes")
        try Self.check("--max-redirects", maxRedirects, in: Limits.maxRedirects)
        try Self.check("--max-folder-entries", maxFolderEntries, in: Limits.maxFolderEntries)
        try Self.check("--max-pixels", maxPixels, in: Limits.maxPixels, unit: "pixels")
        guard !inputs.isEmpty || list != nil else { throw ValidationError("give at least one INPUT or --list FILE") }
    }

    /// Throws a ``ValidationError`` naming `option` and `value` unless `range` holds it.
    private static func check(_ option: String, _ value: Int, in range: ClosedRange<Int>, unit: String = "")
        throws(ValidationError)
    {
        guard !range.contains(value) else { return }
        let unit = unit.isEmpty ? "" : " " + unit
        throw ValidationError(
            "\(option) must be between \(range.lowerBound) and \(range.upperBound)\(unit), not \(value)")
    }

    func run() async throws {
        var arguments = inputs
        if let list { arguments += try InputList.read(list) }
        // First, so that a required Redis server that is down fails the run before it writes anything.
        let remote = try await remoteOptions.openTier(logger: ToolLogHandler.logger(label: "Hoard.redis"))
        let summary: BatchSummary
        do {
            summary = try await makeThumbnails(arguments, remote: remote)
        } catch {
            await remote?.shutdown()
            throw error
        }
        await remote?.shutdown()
        summary.print(json: json, outputDirectory: output)
        if summary.failed > 0 { throw ExitCode(1) }
    }

    /// Runs the batch over `arguments`, with the shared tier `remote` after the disk when there is one.
    private func makeThumbnails(_ arguments: [String], remote: RedisTier?) async throws -> BatchSummary {
        let outputDirectory = URL(fileURLWithPath: output, isDirectory: true)
        do {
            if !LocalFile.isDirectory(output) {
                try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            }
        } catch {
            throw RunFailure("cannot create the output folder \(output): \(error.localizedDescription)")
        }
        let hoard = try cacheOptions.openHoard(
            remote: remote, fetchLeaseDuration: fetchLeaseDuration,
            logger: ToolLogHandler.logger())
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let settings = ThumbnailSettings(
            box: size, fit: fit, gravity: gravity, naming: OutputNaming(template: name)!, format: format, quality: effectiveQuality, filter: filter, colour: colour, decodeScale: decodeScale,
            outputPath: outputDirectory.path)
        let downloader = Downloader(
            timeout: timeout, maximumBytes: maxDownloadBytes, maximumRedirects: maxRedirects)
        let originalStore = OriginalStore { [cacheOptions, keepOriginals, fetchLeaseDuration] in
            guard keepOriginals else { return nil }
            return try cacheOptions.openOriginals(remote: remote, fetchLeaseDuration: fetchLeaseDuration)
        }
        let batch = ThumbnailBatch(
            hoard: hoard, originalStore: originalStore, downloader: downloader, settings: settings,
            downloadConcurrency: concurrency ?? cores * 4, decodeConcurrency: min(concurrency ?? cores, cores),
            revalidation: revalidate, maximumPixelCount: maxPixels, reportsSizes: json)
        let expanded = InputSource.expand(arguments, maximumFolderEntries: maxFolderEntries)
        var summary = await batch.run(expanded, progress: Progress.forStandardError())
        try await downloader.shutdown()
        if let remote {
            let waits = hoard.statistics.sharedFetchWaits + (originalStore.opened?.statistics.sharedFetchWaits ?? 0)
            summary.remote = RemoteActivity(waits: waits, errors: remote.statistics.errors)
        }
        return summary
    }
}

/// What `--format` accepts: the library's thumbnail formats, spelled for the command line.
enum OutputFormat: String, ExpressibleByArgument, Sendable, CaseIterable {
    case auto, jpeg, png, webp, avif

    var keyFormat: ThumbnailKey.Format {
        switch self {
        case .auto: .auto
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        }
    }
}

extension Image.ColourHandling: ExpressibleByArgument {}

extension Image.DecodeScale: ExpressibleByArgument {}

extension RevalidationPolicy: ExpressibleByArgument {}

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
/// list file are relative to the file's folder (in standard input, to the current folder). The
/// list must be a regular file (or standard input) of at most 64 MiB.
enum InputList {
    static func read(_ path: String) throws -> [String] {
        let data: Data
        let limit = ThumbnailsCommand.maximumListBytes
        do throws(LocalFile.ReadError) {
            data =
                path == "-"
                ? try LocalFile.readStandardInput(maximumByteCount: limit)
                : try LocalFile.read(path, maximumByteCount: limit)
        } catch {
            throw RunFailure("cannot read the list \(path): \(error)")
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
