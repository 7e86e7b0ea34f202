import Foundation

/// Whether a JPEG file reaches its end-of-image marker.
enum JPEGEnd {
    /// Whether `data` holds an end-of-image marker (`FF D9`) after its last start-of-scan marker
    /// (`FF DA`), read backwards: a whole file answers within its last bytes. Entropy-coded data
    /// never holds `FF D9` (a data `FF` is followed by `00`, or is a restart marker), and an EXIF
    /// thumbnail's markers come before the image's scans, so a file cut in or after its first scan
    /// has none there.
    ///
    /// - Complexity: O(n) in the bytes after the end marker, or after the last scan's start.
    static func isPresent(in data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = bytes.count - 2
            while index >= 0 {
                if bytes[index] == 0xFF {
                    if bytes[index + 1] == 0xD9 { return true }
                    if bytes[index + 1] == 0xDA { return false }
                }
                index -= 1
            }
            return false
        }
    }
}
