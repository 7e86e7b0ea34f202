import Foundation
import HoardCore

/// An encoded image file format that ``Image`` reads; PNG, JPEG and WebP it also writes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Portable Network Graphics, lossless, with optional alpha.
    case png
    /// JPEG (JFIF/Exif), lossy, no alpha.
    case jpeg
    /// WebP, lossy or lossless, with optional alpha; animations decode to their first frame.
    case webp
    /// GIF, palette-based, with optional transparency; animations decode to their first frame.
    case gif
    /// AVIF (AV1 in HEIF), 8 to 12 bits, with optional alpha; sequences decode to their first frame.
    case avif

    /// Recognises a format from its leading bytes.
    ///
    /// PNG needs its full 8-byte signature; JPEG needs its SOI marker followed by a marker byte
    /// (`FF D8 FF`); WebP a RIFF header of form type `WEBP`; GIF `GIF87a` or `GIF89a`; AVIF an
    /// ISO-BMFF `ftyp` box whose major or compatible brands include `avif` or `avis` (a HEIC file's
    /// `heic` and `mif1` alone do not). File names and MIME types are never consulted.
    ///
    /// ```swift
    /// ImageFormat(sniffing: Data("GIF89a".utf8))  // .gif
    /// ```
    ///
    /// - Parameter data: The start of an encoded file; at most the first 64 bytes are read.
    /// - Returns: The format, or `nil` when the bytes match no signature.
    public init?(sniffing data: some DataProtocol) {
        let prefix = Array(data.prefix(64))
        if prefix.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if prefix.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if prefix.count >= 12, prefix.starts(with: Array("RIFF".utf8)),
            Array(prefix[8..<12]) == Array("WEBP".utf8)
        {
            self = .webp
        } else if prefix.starts(with: Array("GIF87a".utf8)) || prefix.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if Self.isAVIFFileType(prefix) {
            self = .avif
        } else {
            return nil
        }
    }

    /// The usual lowercase name: `png`, `jpeg`, `webp`, `gif` or `avif`.
    public var description: String { rawValue }

    /// The media type an HTTP response names it by: `image/png`, `image/jpeg`, `image/webp`,
    /// `image/gif` or `image/avif`.
    public var mediaType: String { "image/" + rawValue }

    /// The conventional file-name extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        case .webp: "webp"
        case .gif: "gif"
        case .avif: "avif"
        }
    }

    // MARK: - Private

    /// Whether `bytes` start with an `ftyp` box (size, `ftyp`, major brand, minor version,
    /// compatible brands) that names `avif` (still image) or `avis` (sequence) among its brands.
    private static func isAVIFFileType(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 16, Array(bytes[4..<8]) == Array("ftyp".utf8) else { return false }
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        guard declared >= 16 else { return false }
        let end = min(declared, bytes.count)
        let brands = [8] + Array(stride(from: 16, to: end - 3, by: 4))
        return brands.contains { offset in
            let brand = Array(bytes[offset..<offset + 4])
            return brand == Array("avif".utf8) || brand == Array("avis".utf8)
        }
    }
}
