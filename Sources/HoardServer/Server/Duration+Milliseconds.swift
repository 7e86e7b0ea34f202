extension Duration {
    /// Whole milliseconds, at least 1 (at most about 35 years).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return max(1, min(seconds, 1 << 40) * 1000 + attoseconds / 1_000_000_000_000_000)
    }
}
