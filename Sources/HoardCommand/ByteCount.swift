/// Byte counts as the tool prints them, in the binary units its limits are given in
/// (`--cache-limit` is in MiB): `512 B`, `4.7 KiB`, `105.8 MiB`, `1.0 GiB`.
enum ByteCount {
    /// `bytes` in the largest binary unit that keeps at least 1 before the point, to a tenth.
    ///
    /// ```swift
    /// ByteCount.human(4_812)  // "4.7 KiB"
    /// ```
    static func human(_ bytes: Int) -> String {
        guard bytes.magnitude >= 1_024 else { return "\(bytes) B" }
        var value = Double(bytes)
        for unit in ["KiB", "MiB", "GiB", "TiB", "PiB"] {
            value /= 1_024
            if value.magnitude < 1_024 || unit == "PiB" { return "\(value.fixed(decimals: 1)) \(unit)" }
        }
        return "\(bytes) B"
    }

    /// `human(bytes)` with the exact count: `105.8 MiB (110977117 bytes)` (no grouping, which
    /// scripts can read).
    static func humanAndExact(_ bytes: Int) -> String {
        bytes.magnitude < 1_024 ? "\(bytes) B" : "\(human(bytes)) (\(bytes) bytes)"
    }

    /// A limit as it was given: a whole number of the largest binary unit that divides it
    /// (`512 MiB`, `1 GiB`), else ``human(_:)``.
    ///
    /// ```swift
    /// ByteCount.limit(1_024 << 20)  // "1 GiB"
    /// ByteCount.limit(1_536 << 20)  // "1536 MiB"
    /// ```
    static func limit(_ bytes: Int) -> String {
        for (shift, unit) in [(60, "EiB"), (50, "PiB"), (40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")] where bytes >= 1 << shift {
            if bytes & ((1 << shift) - 1) == 0 { return "\(bytes >> shift) \(unit)" }
        }
        return human(bytes)
    }
}
