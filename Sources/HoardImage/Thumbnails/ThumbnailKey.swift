import Foundation
import HoardCore
import HoardSystem

/// The cache key of a thumbnail, the one the `hoard thumbnails` tool stores it under: the source
/// and every setting that changes the thumbnail's bytes.
///
/// The tool and code share one cache: `hoard thumbnails` uses ``Hoard/shared``'s folder unless
/// `--cache` names another, and stores each thumbnail as an ``Image`` entry (its JPEG, PNG or WebP
/// bytes, recorded under ``Image``'s ``Cachable/cacheTypeIdentifier``). So code reads what the tool
/// made with ``Hoard/retrieve(_:forKey:)-(_,ThumbnailKey)`` and gets it decoded, and a thumbnail
/// code stores with ``Hoard/store(_:forKey:expiry:)-(_,ThumbnailKey,_)`` is what the tool's next
/// run writes out, without decoding anything. The key string itself is ``key`` (also
/// ``description``), for the `String`-keyed API and `hoard cache get`.
///
/// A key holds:
/// - the **source**: an http(s) URL (with any user name and password replaced by the hex SHA-256
///   of them, so that no secret is stored) or the `file://` URL of an absolute path;
/// - for a local file, its **fingerprint** (size and modification time), so that an edited file
///   is thumbnailed again;
/// - the **size** (`--size`), **format** (`--format`), JPEG or WebP **quality** (`--quality`),
///   resampling **filter** (`--filter`), **colour** handling (`--colour`) and **decode scale**
///   (`--decode-scale`), whose defaults here are the tool's.
///
/// Keys start with `thumbnail/v4`: the version changes whenever the tool's output for the same
/// settings does (v2: thumbnail sizes rounded as Pillow rounds them; v3: colours converted to
/// sRGB, and opaque images with an alpha channel stored as JPEG; v4: decode-time scaling leaves
/// the final filter a factor of two, see ``Image/DecodeScale``), so a thumbnail an older version
/// made is never served as a new one, and a fast thumbnail never for a faithful one.
///
/// ```swift
/// let key = try ThumbnailKey(file: "photos/beach.jpg", size: 256)  // hoard thumbnails photos/beach.jpg --size 256
/// if let thumbnail = try await Hoard.shared.retrieve(Image.self, forKey: key) {
///     print(thumbnail.width, thumbnail.height)
/// }
/// print(key)  // thumbnail/v4 file:///home/ada/photos/beach.jpg bytes=2411725 modified=1718000000.123456789 size=256 format=auto quality=85 filter=lanczos3 colour=srgb decode-scale=faithful
/// ```
public struct ThumbnailKey: Sendable, Hashable {
    /// The tool's default JPEG (and WebP) quality, `--quality`'s default: 85.
    public static let defaultQuality = 85

    /// The longest side a JPEG may have: libjpeg's limit (`JPEG_MAX_DIMENSION`). A thumbnail that
    /// becomes a JPEG is scaled down to fit it first.
    public static let maximumJPEGSide = 65_500

    /// The first word of every key; it changes whenever the thumbnails made for a key do.
    static let version = "thumbnail/v4"

    /// The source, as the tool names it: an http(s) URL (user information replaced by its
    /// SHA-256) or the `file://` URL of an absolute path.
    public let source: String
    /// A local file's size and modification time when the key was made; `nil` for a URL.
    public let fingerprint: FileFingerprint?
    /// The longest side of the thumbnail, in pixels.
    public let size: Int
    /// The encoding the thumbnail is stored in.
    public let format: Format
    /// The JPEG or WebP quality, 1-100 (part of the key even when the thumbnail is a PNG, as in the tool).
    public let quality: Int
    /// The resampling filter used after decode-time downscaling.
    public let filter: Image.ResamplingFilter
    /// What happens to the source's colour profile (default ``Image/ColourHandling/srgb``).
    public let colour: Image.ColourHandling
    /// How far decode-time scaling may shrink the source (default ``Image/DecodeScale/faithful``).
    public let decodeScale: Image.DecodeScale

    /// Creates a key from its parts, for sources named by the caller.
    ///
    /// Prefer ``init(file:size:format:quality:filter:)`` and ``init(url:size:format:quality:filter:)``,
    /// which name the source as the tool does.
    ///
    /// ```swift
    /// let key = try ThumbnailKey(source: "https://example.com/a.jpg", size: 128, format: .png)
    /// ```
    ///
    /// - Parameters:
    ///   - source: The source's name; not empty, no white space.
    ///   - fingerprint: A local file's size and modification time, or `nil`.
    ///   - size: The thumbnail's longest side, at least 1.
    ///   - format: The stored encoding; default ``Format/auto``.
    ///   - quality: The JPEG or WebP quality, 1-100; default ``defaultQuality`` (85).
    ///   - filter: The resampling filter; default ``Image/ResamplingFilter/lanczos3``.
    ///   - colour: What happens to the source's colours; default ``Image/ColourHandling/srgb``.
    ///   - decodeScale: How far decode-time scaling may shrink the source; default
    ///     ``Image/DecodeScale/faithful``.
    /// - Throws: ``ThumbnailKeyError/invalidValue(_:)`` naming `source`, `size` or `quality`.
    public init(
        source: String, fingerprint: FileFingerprint? = nil, size: Int, format: Format = .auto,
        quality: Int = Self.defaultQuality, filter: Image.ResamplingFilter = .lanczos3,
        colour: Image.ColourHandling = .srgb, decodeScale: Image.DecodeScale = .faithful
    ) throws(ThumbnailKeyError) {
        guard !source.isEmpty, !source.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw .invalidValue(
                InvalidValueError(
                    field: "ThumbnailKey.source", value: "\"\(source)\"", requirement: "not empty, with no white space")
            )
        }
        do {
            try InvalidValueError.check(size, atLeast: 1, "ThumbnailKey.size")
            try InvalidValueError.check(quality, in: 1...100, "ThumbnailKey.quality")
        } catch {
            throw .invalidValue(error)
        }
        self.source = source
        self.fingerprint = fingerprint
        self.size = size
        self.format = format
        self.quality = quality
        self.filter = filter
        self.colour = colour
        self.decodeScale = decodeScale
    }

    /// Creates the key the tool uses for a local file: its `file://` URL and its current size and
    /// modification time (one `stat` call).
    ///
    /// A relative path is resolved against the current folder and `.` and `..` are removed, as
    /// the tool does with its arguments; symbolic links are not resolved (the tool does not either).
    ///
    /// ```swift
    /// let key = try ThumbnailKey(file: "/photos/beach.jpg", size: 256, format: .jpeg, quality: 90)
    /// ```
    ///
    /// - Parameters:
    ///   - path: The image file, absolute or relative to the current folder.
    ///   - size: The thumbnail's longest side, at least 1.
    ///   - format: The stored encoding; default ``Format/auto``.
    ///   - quality: The JPEG or WebP quality, 1-100; default ``defaultQuality`` (85).
    ///   - filter: The resampling filter; default ``Image/ResamplingFilter/lanczos3``.
    ///   - colour: What happens to the source's colours; default ``Image/ColourHandling/srgb``.
    ///   - decodeScale: How far decode-time scaling may shrink the source; default
    ///     ``Image/DecodeScale/faithful``.
    /// - Throws: ``ThumbnailKeyError/fileUnavailable(path:call:errno:)`` when the file's status
    ///   cannot be read (`ENOENT`, `EACCES`); ``ThumbnailKeyError/invalidValue(_:)``.
    public init(
        file path: String, size: Int, format: Format = .auto, quality: Int = Self.defaultQuality,
        filter: Image.ResamplingFilter = .lanczos3, colour: Image.ColourHandling = .srgb,
        decodeScale: Image.DecodeScale = .faithful
    ) throws(ThumbnailKeyError) {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        try self.init(
            source: Self.sourceName(ofFile: absolute), fingerprint: FileFingerprint(file: absolute), size: size,
            format: format, quality: quality, filter: filter, colour: colour, decodeScale: decodeScale)
    }

    /// Creates the key the tool uses for a URL: an http(s) URL as it is (user name and password
    /// replaced by their SHA-256), or a `file:` URL as ``init(file:size:format:quality:filter:)``.
    ///
    /// ```swift
    /// if let url = URL(string: "https://example.com/a.jpg") {
    ///     let key = try ThumbnailKey(url: url, size: 256)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - url: An http or https URL with a host, or a file URL.
    ///   - size: The thumbnail's longest side, at least 1.
    ///   - format: The stored encoding; default ``Format/auto``.
    ///   - quality: The JPEG or WebP quality, 1-100; default ``defaultQuality`` (85).
    ///   - filter: The resampling filter; default ``Image/ResamplingFilter/lanczos3``.
    ///   - colour: What happens to the source's colours; default ``Image/ColourHandling/srgb``.
    ///   - decodeScale: How far decode-time scaling may shrink the source; default
    ///     ``Image/DecodeScale/faithful``.
    /// - Throws: ``ThumbnailKeyError/unsupportedURL(_:)`` for another scheme or no host;
    ///   ``ThumbnailKeyError/hashUnavailable`` when the SHA-256 of credentials fails; for a file
    ///   URL, as ``init(file:size:format:quality:filter:)``.
    public init(
        url: URL, size: Int, format: Format = .auto, quality: Int = Self.defaultQuality,
        filter: Image.ResamplingFilter = .lanczos3, colour: Image.ColourHandling = .srgb,
        decodeScale: Image.DecodeScale = .faithful
    ) throws(ThumbnailKeyError) {
        switch url.scheme?.lowercased() {
        case "file":
            try self.init(
                file: url.path, size: size, format: format, quality: quality, filter: filter, colour: colour,
                decodeScale: decodeScale)
        case "http", "https":
            guard url.host?.isEmpty == false else { throw .unsupportedURL(Self.redactingCredentials(of: url)) }
            guard let source = Self.sourceName(ofRemote: url) else { throw .hashUnavailable }
            try self.init(
                source: source, size: size, format: format, quality: quality, filter: filter, colour: colour,
                decodeScale: decodeScale)
        default:
            throw .unsupportedURL(Self.redactingCredentials(of: url))
        }
    }

    /// The cache key: `thumbnail/v4 <source>[ bytes=<n> modified=<s>.<ns>] size=<n> format=<f>
    /// quality=<q> filter=<name> colour=<srgb|keep|ignore> decode-scale=<faithful|fast>`, the
    /// filter, colour and decode scale spelled as the tool's `--filter`, `--colour` and
    /// `--decode-scale` spell them.
    ///
    /// ```swift
    /// let bytes = try Hoard.shared.storedBytes(forKey: key.key)  // the tool's JPEG, PNG or WebP, as written
    /// ```
    public var key: String {
        let fileFingerprint = fingerprint.map { " " + $0.description } ?? ""
        return
            "\(Self.version) \(source)\(fileFingerprint) size=\(size) format=\(format.rawValue) quality=\(quality) filter=\(Self.name(of: filter)) colour=\(colour.rawValue) decode-scale=\(decodeScale.rawValue)"
    }

    /// Makes the thumbnail the tool makes for this key from the source's bytes: decode-time
    /// downscaling as ``decodeScale`` allows, then ``filter`` down to ``size``, then ``colour`` (see
    /// ``Image/thumbnail(from:fittingIn:options:filter:)``).
    ///
    /// ```swift
    /// let thumbnail = try key.thumbnail(from: Data(contentsOf: photoURL))
    /// ```
    ///
    /// - Parameter data: The source image: PNG, JPEG, WebP, GIF or AVIF.
    /// - Returns: The thumbnail, upright.
    /// - Throws: ``ImageError``, as ``Image/thumbnail(from:fittingIn:options:filter:)``.
    public func thumbnail(from data: Data) throws(ImageError) -> Image {
        try thumbnailReportingWarnings(from: data).image
    }

    /// ``thumbnail(from:)`` with the decoder's warnings (see
    /// ``Image/thumbnailReportingWarnings(from:fittingIn:options:filter:)``).
    ///
    /// - Parameters:
    ///   - data: The source image.
    ///   - maximumPixelCount: The decoding limit (see ``Image/DecodingOptions/maximumPixelCount``).
    /// - Returns: The thumbnail and the warnings.
    /// - Throws: As ``thumbnail(from:)``.
    public func thumbnailReportingWarnings(
        from data: Data, maximumPixelCount: Int = Image.DecodingOptions.defaultMaximumPixelCount
    ) throws(ImageError) -> (image: Image, warnings: [String]) {
        try Image.thumbnailReportingWarnings(
            from: data, fittingIn: size, options: decodingOptions(maximumPixelCount: maximumPixelCount), filter: filter)
    }

    /// The decoding options of this key's thumbnails: its colour handling and decode scale (a
    /// fast one also leaves out a progressive JPEG's last refinement bit at 1/8), under
    /// `maximumPixelCount`. What a server that crops or fits other boxes from the key decodes with.
    package func decodingOptions(maximumPixelCount: Int) -> Image.DecodingOptions {
        var options = Image.DecodingOptions()
        options.colour = colour
        options.maximumPixelCount = maximumPixelCount
        options.decodeScale = decodeScale
        if decodeScale == .fast { options.progressiveReading = .nearlyExact }
        return options
    }

    /// The bytes the tool stores and writes for `thumbnail`: PNG for ``Format/png`` (and for
    /// ``Format/auto`` when some pixel is not opaque); WebP for ``Format/webp`` at ``quality``, lossless
    /// when the image has alpha and ``quality`` is 100; AVIF for ``Format/avif`` at ``quality``; else
    /// JPEG at ``quality``. A JPEG is first
    /// scaled down to fit ``maximumJPEGSide`` if it is larger, a WebP to fit ``Image/maximumWebPSide``.
    ///
    /// ```swift
    /// let bytes = try key.encoded(thumbnail)
    /// ```
    ///
    /// - Parameter thumbnail: The thumbnail.
    /// - Returns: A PNG, JPEG, WebP or AVIF file.
    /// - Throws: ``ImageError/encodingFailed(_:message:)``.
    public func encoded(_ thumbnail: Image) throws(ImageError) -> Data {
        switch format {
        case .png:
            return try thumbnail.pngData()
        case .auto where !thumbnail.isOpaque:
            return try thumbnail.pngData()
        case .webp:
            let fitting = try fitted(thumbnail, within: Image.maximumWebPSide)
            return try fitting.webpData(quality: quality, lossless: fitting.hasAlpha && quality == 100)
        case .avif:
            return try thumbnail.avifData(quality: quality)
        case .auto, .jpeg:
            return try fitted(thumbnail, within: Self.maximumJPEGSide).jpegData(quality: quality)
        }
    }

    /// The name a key gives a local file: the `file://` URL of `path`, which must be absolute and
    /// standardized (no `.` or `..`). What the tool's output names are made from too.
    package static func sourceName(ofFile path: String) -> String {
        // isDirectory: false, as the source is a file: without it, URL asks the file system.
        URL(fileURLWithPath: path, isDirectory: false).absoluteString
    }

    /// The name a key gives an http(s) URL: the URL with its user information (if any) replaced by
    /// the hex SHA-256 of it, or `nil` when the system's SHA-256 fails.
    package static func sourceName(ofRemote url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let user = components.percentEncodedUser
        let password = components.percentEncodedPassword
        guard user != nil || password != nil else { return url.absoluteString }
        let userinfo = (user ?? "") + (password.map { ":" + $0 } ?? "")
        guard let digest = SHA256.hexDigest(Array(userinfo.utf8)) else { return nil }
        var hashed = components
        hashed.percentEncodedPassword = nil
        hashed.percentEncodedUser = digest
        return hashed.url?.absoluteString
    }

    // MARK: - Private

    /// `thumbnail`, scaled down with ``filter`` to fit `side` if it is larger.
    private func fitted(_ thumbnail: Image, within side: Int) throws(ImageError) -> Image {
        max(thumbnail.width, thumbnail.height) > side ? try thumbnail.resized(toFit: side, filter: filter) : thumbnail
    }

    /// The `--filter` spelling of `filter`.
    private static func name(of filter: Image.ResamplingFilter) -> String {
        switch filter {
        case .lanczos3: "lanczos3"
        case .catmullRom: "catmull-rom"
        case .bilinear: "bilinear"
        case .box: "box"
        }
    }

    /// `url` as text with its user information (a password, or a user name that may be a token)
    /// shown as `***`, for an error message.
    private static func redactingCredentials(of url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.percentEncodedUser != nil || components.percentEncodedPassword != nil
        else { return url.absoluteString }
        components.percentEncodedUser = "***"
        components.percentEncodedPassword = nil
        return components.string ?? "(a URL with credentials)"
    }
}

extension ThumbnailKey: CustomStringConvertible {
    /// The cache key, ``key``.
    public var description: String { key }
}
