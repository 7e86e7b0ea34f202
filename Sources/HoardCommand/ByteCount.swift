/// Byte counts as people read them: `512 B`, `4.8 kB`, `111.0 MB`, `1.1 GB` (decimal units, as
/// `ls -h --si` and most file managers show).
enum ByteCount {
    /// `bytes` in the largest unit that keeps at least 1 before the point.
    ///
    /// ```swift
    /// ByteCount.human(4_812)  // "4.8 kB"
    /// ```
    static func human(_ bytes: Int) -> String {
        guard bytes.magnitude >= 1_000 else { return "\(bytes) B" }
        var value = Double(bytes)
        for unit in ["kB", "MB", "GB", "TB", "PB"] {
            value /= 1_000
            if value.magnitude < 1_000 || unit == "PB" { return "\(value.fixed(decimals: 1)) \(unit)" }
        }
        return "\(bytes) B"
    }

    /// `human(bytes)` with the exact count: `111.0 MB (110,977,117 bytes)` (no grouping: `111.0 MB
    /// (110977117 bytes)`, which scripts can read).
    static func humanAndExact(_ bytes: Int) -> String {
        bytes.magnitude < 1_000 ? "\(bytes) B" : "\(human(bytes)) (\(bytes) bytes)"
    }
}
