extension GIFBuilder {
    /// One LZW code and the width in bits it is written with.
    struct Code {
        var value: Int
        var width: Int
    }

    /// GIF's LZW compression of `indices` (a string table, code widths growing to 12 bits), as
    /// codes, so that a test can damage them before ``image(width:height:minimumCodeSize:codes:)``.
    ///
    /// - Parameter clearWhenFull: Whether a full table (4,096 codes) is followed by a clear code;
    ///   when not, the encoder goes on with the full table (a "deferred clear"), as GIF allows.
    static func lzwCodes(_ indices: [UInt8], minimumCodeSize: Int, clearWhenFull: Bool) -> [Code] {
        let clear = 1 << minimumCodeSize
        var table: [Int: Int] = [:]  // prefix code << 8 | byte -> code
        var next = clear + 2
        var width = minimumCodeSize + 1
        var codes = [Code(value: clear, width: width)]
        guard var current = indices.first.map(Int.init) else { return codes + [Code(value: clear + 1, width: width)] }
        for byte in indices.dropFirst() {
            let key = current << 8 | Int(byte)
            if let known = table[key] {
                current = known
                continue
            }
            codes.append(Code(value: current, width: width))
            if next < 4096 {
                table[key] = next
                next += 1
                // The decoder reads one code behind: it needs the wider code once `next` passes 2^width.
                if next > 1 << width, width < 12 { width += 1 }
            } else if clearWhenFull {
                codes.append(Code(value: clear, width: width))
                table = [:]
                next = clear + 2
                width = minimumCodeSize + 1
            }
            current = Int(byte)
        }
        codes.append(Code(value: current, width: width))
        codes.append(Code(value: clear + 1, width: width))
        return codes
    }

    /// An image descriptor (no local palette, not interlaced) and `codes` packed into sub-blocks.
    mutating func image(width: Int, height: Int, minimumCodeSize: Int, codes: [Code]) {
        raw([0x2C, 0, 0, 0, 0, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0])
        raw(Self.packed(codes, minimumCodeSize: minimumCodeSize))
    }

    /// An image's LZW data: the minimum code size, then `codes` packed least significant bit first
    /// into sub-blocks of up to 255 bytes, then the terminator.
    static func packed(_ codes: [Code], minimumCodeSize: Int) -> [UInt8] {
        var packed: [UInt8] = []
        var buffer = 0
        var count = 0
        for code in codes {
            buffer |= code.value << count
            count += code.width
            while count >= 8 {
                packed.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                count -= 8
            }
        }
        if count > 0 { packed.append(UInt8(buffer & 0xFF)) }
        var blocks: [UInt8] = [UInt8(minimumCodeSize)]
        for start in stride(from: 0, to: packed.count, by: 255) {
            let block = packed[start..<min(start + 255, packed.count)]
            blocks += [UInt8(block.count)] + block
        }
        return blocks + [0]
    }
}
