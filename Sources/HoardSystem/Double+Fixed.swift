
extension Double {
    /// The value with `decimals` digits after the point, rounded half away from zero: what
    /// `String(format: "%.Nf")` prints, but for exact halves, without Foundation's formatter,
    /// whose first use in a process is a noticeable part of a cached rerun's work.
    ///
    /// ```swift
    /// 2.345.fixed(decimals: 1)  // "2.3"
    /// 0.005.fixed(decimals: 2)  // "0.01"
    /// ```
    ///
    /// - Parameter decimals: Digits after the point, 0...15 (a Double has no more to print).
    package func fixed(decimals: Int) -> String {
        precondition((0...15).contains(decimals), "fixed(decimals:) prints 0 to 15 decimals")
        var scale: UInt = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (self * Double(scale)).rounded(.toNearestOrAwayFromZero)
        // Beyond 2^53 a Double has no fraction digits left to print, and Int could overflow; this
        // also refuses infinities and NaN before the conversion below.
        guard scaled.isFinite, scaled.magnitude < 9_007_199_254_740_992 else { return "\(self)" }
        let units = Int(scaled)
        let whole = String(units.magnitude / scale)
        let sign = units < 0 ? "-" : ""
        guard decimals > 0 else { return sign + whole }
        return sign + whole + "." + String(units.magnitude % scale).zeroPadded(toLength: decimals)
    }
}
