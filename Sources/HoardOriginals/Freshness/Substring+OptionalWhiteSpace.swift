extension Substring {
    /// The text without leading and trailing spaces and tabs: HTTP's optional white space
    /// (RFC 9110 §5.6.3) around list members and values.
    ///
    /// ```swift
    /// " max-age=60\t"[...].trimmingOptionalWhiteSpace()  // "max-age=60"
    /// ```
    package func trimmingOptionalWhiteSpace() -> Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
