import Foundation

/// An encoded image file format that ``Image`` reads and writes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Portable Network Graphics, lossless, with optional alpha.
    case png
    /// JPEG (JFIF/Exif), lossy, no alpha.
    case jpeg

    /// Recognises a format from its leading magic bytes.
    ///
    /// PNG needs its full 8-byte signature; JPEG needs its SOI marker followed by a marker byte
    /// (`FF D8 FF`). File names and MIME types are never consulted.
    ///
    /// - Parameter data: The start of an encoded file; only the first 8 bytes are read.
    /// - Returns: The format, or `nil` when the bytes match neither signature.
    public init?(sniffing data: some DataProtocol) {
        let prefix = Array(data.prefix(8))
        if prefix == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
            self = .png
        } else if prefix.count >= 3, prefix[0] == 0xFF, prefix[1] == 0xD8, prefix[2] == 0xFF {
            self = .jpeg
        } else {
            return nil
        }
    }

    /// The usual lowercase name: `png` or `jpeg`.
    public var description: String { rawValue }

    /// The conventional file-name extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        }
    }
}
