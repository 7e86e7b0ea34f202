import Foundation

/// Writes small GIF files for tests: a logical screen, graphic control extensions, images with
/// their own placement and palettes, and raw bytes where a test wants damage.
///
/// ```swift
/// var gif = GIFBuilder(width: 2, height: 1, palette: [[255, 0, 0], [0, 0, 255]])
/// gif.image(width: 2, height: 1, indices: [0, 1])
/// let data = gif.finished()
/// ```
struct GIFBuilder {
    private(set) var bytes: [UInt8] = Array("GIF89a".utf8)

    /// The header and logical screen descriptor, with `palette` (RGB triples) as the global table.
    init(width: Int, height: Int, palette: [[UInt8]]? = nil) {
        bytes += Self.u16(width) + Self.u16(height)
        if let palette {
            let bits = Self.tableBits(palette.count)
            bytes += [0x80 | UInt8(bits - 1), 0, 0]
            bytes += Self.table(palette, bits: bits)
        } else {
            bytes += [0, 0, 0]
        }
    }

    /// A graphic control extension for the next image.
    mutating func graphicControl(transparentIndex: Int?) {
        bytes += [0x21, 0xF9, 4, transparentIndex == nil ? 0 : 1, 0, 0, UInt8(transparentIndex ?? 0), 0]
    }

    /// An image descriptor and its LZW data: `indices` in row order (written in interlaced order
    /// when `interlaced`), with `palette` as its local table.
    mutating func image(
        left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8], palette: [[UInt8]]? = nil,
        interlaced: Bool = false
    ) {
        precondition(indices.count == width * height)
        bytes += [0x2C] + Self.u16(left) + Self.u16(top) + Self.u16(width) + Self.u16(height)
        var flags: UInt8 = interlaced ? 0x40 : 0
        var table: [UInt8] = []
        if let palette {
            let bits = Self.tableBits(palette.count)
            flags |= 0x80 | UInt8(bits - 1)
            table = Self.table(palette, bits: bits)
        }
        bytes += [flags] + table
        var ordered = indices
        if interlaced {
            let rows = [0, 4, 2, 1].enumerated().flatMap { pass, start in
                stride(from: start, to: height, by: [8, 8, 4, 2][pass])
            }
            ordered = rows.flatMap { indices[$0 * width..<($0 + 1) * width] }
        }
        bytes += Self.lzw(ordered)
    }

    /// Bytes as they are, for damage.
    mutating func raw(_ more: [UInt8]) {
        bytes += more
    }

    /// The file with its trailer.
    func finished() -> Data {
        Data(bytes + [0x3B])
    }

    // MARK: - Private

    private static func u16(_ value: Int) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
    }

    private static func tableBits(_ count: Int) -> Int {
        var bits = 1
        while 1 << bits < count { bits += 1 }
        return bits
    }

    private static func table(_ palette: [[UInt8]], bits: Int) -> [UInt8] {
        (0..<(1 << bits)).flatMap { $0 < palette.count ? palette[$0] : [0, 0, 0] }
    }

    /// LZW with literal codes only: a clear code before every run short enough that the code
    /// width never grows, so no string table is needed.
    private static func lzw(_ indices: [UInt8]) -> [UInt8] {
        var minimumCodeSize = 2
        while 1 << minimumCodeSize <= Int(indices.max() ?? 0) { minimumCodeSize += 1 }
        let clear = 1 << minimumCodeSize
        let width = minimumCodeSize + 1
        var codes: [Code] = []
        for (offset, index) in indices.enumerated() {
            if offset % (clear - 2) == 0 { codes.append(Code(value: clear, width: width)) }
            codes.append(Code(value: Int(index), width: width))
        }
        codes.append(Code(value: clear + 1, width: width))
        return packed(codes, minimumCodeSize: minimumCodeSize)
    }
}
