extension String {
    /// The string with zeros in front, up to `length` characters; unchanged when already as long.
    ///
    /// ```swift
    /// "7".zeroPadded(toLength: 3)  // "007"
    /// ```
    package func zeroPadded(toLength length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
