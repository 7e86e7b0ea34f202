import HoardCore

/// Reads the orientation tag (0x0112) from the IFD0 of an Exif block (the TIFF structure that
/// follows `Exif\0\0` in a JPEG APP1 segment). Every offset is bounds-checked: a damaged block
/// yields `nil`, never a crash.
enum ExifOrientationReader {
    static func orientation(in tiff: UnsafeBufferPointer<UInt8>) -> Image.Orientation? {
        guard tiff.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset + 2 <= tiff.count else { return nil }
            let a = Int(tiff[offset]), b = Int(tiff[offset + 1])
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ offset: Int) -> Int? {
            guard let low = u16(littleEndian ? offset : offset + 2),
                let high = u16(littleEndian ? offset + 2 : offset)
            else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            guard tag == 0x0112 else { continue }
            // Type SHORT (3), count 1: the value sits in the first two bytes of the value field.
            guard u16(at + 2) == 3, u32(at + 4) == 1, let value = u16(at + 8) else { return nil }
            return Image.Orientation(rawValue: value)
        }
        return nil
    }
}
