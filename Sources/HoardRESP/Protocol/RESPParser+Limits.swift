// This file imports nothing but the Swift standard library and, in the package, HoardSystem for
// `InvalidValueError`: the libFuzzer harness compiles the files of Protocol/ alone, with that
// error's one file.
#if canImport(HoardSystem)
    import HoardSystem
#endif

extension RESPParser {
    /// The bounds a ``RESPParser`` holds hostile input to: how long a bulk string, an array and
    /// a line may be, how deep arrays may nest, and how many bytes one value may take.
    ///
    /// The parser checks a declared length against these before reading what it declares, and
    /// never allocates for bytes that have not arrived: a peer claiming a 500 MB bulk string
    /// costs memory only as it sends the bytes, and one claiming more than the limit is refused
    /// at once.
    ///
    /// ```swift
    /// let limits = try RESPParser.Limits(maximumBulkStringLength: 16 << 20, maximumValueByteCount: 16 << 20)
    /// var parser = RESPParser(limits: limits)
    /// ```
    public struct Limits: Sendable, Hashable {
        /// The longest bulk string payload, in bytes. Default 512 MiB, Redis's own
        /// `proto-max-bulk-len`.
        public let maximumBulkStringLength: Int
        /// The most elements an array may declare. Default 16,777,216.
        public let maximumArrayLength: Int
        /// The deepest nesting of arrays (a top-level array is depth 1). Default 64.
        public let maximumDepth: Int
        /// The longest line (simple string, error, integer or length) before its CRLF, in bytes,
        /// without the type byte. Default 65,536.
        public let maximumLineLength: Int
        /// The most bytes one top-level value may take in the stream, headers included.
        /// Default 1 GiB.
        public let maximumValueByteCount: Int

        /// The default limits: 512 MiB bulk strings, 16 Mi elements per array, 64 levels,
        /// 64 KiB lines, 1 GiB per value.
        public static let `default` = Limits(
            unchecked: 512 << 20, arrayLength: 1 << 24, depth: 64, lineLength: 1 << 16, valueByteCount: 1 << 30)

        /// Limits with the given values, each checked.
        ///
        /// ```swift
        /// let limits = try RESPParser.Limits(maximumBulkStringLength: 1 << 20)
        /// ```
        ///
        /// - Parameters:
        ///   - maximumBulkStringLength: The longest bulk string, at least 0.
        ///   - maximumArrayLength: The most elements per array, at least 0.
        ///   - maximumDepth: The deepest array nesting, at least 1.
        ///   - maximumLineLength: The longest line, at least 21 (an `Int64` and its sign).
        ///   - maximumValueByteCount: The most bytes per top-level value, at least 3.
        /// - Throws: `InvalidValueError` naming the first value below its minimum.
        /// - Complexity: O(1).
        public init(
            maximumBulkStringLength: Int = Limits.default.maximumBulkStringLength,
            maximumArrayLength: Int = Limits.default.maximumArrayLength,
            maximumDepth: Int = Limits.default.maximumDepth,
            maximumLineLength: Int = Limits.default.maximumLineLength,
            maximumValueByteCount: Int = Limits.default.maximumValueByteCount
        ) throws(InvalidValueError) {
            try Self.check(maximumBulkStringLength, atLeast: 0, "maximumBulkStringLength")
            try Self.check(maximumArrayLength, atLeast: 0, "maximumArrayLength")
            try Self.check(maximumDepth, atLeast: 1, "maximumDepth")
            try Self.check(maximumLineLength, atLeast: 21, "maximumLineLength")
            try Self.check(maximumValueByteCount, atLeast: 3, "maximumValueByteCount")
            self.init(
                unchecked: maximumBulkStringLength, arrayLength: maximumArrayLength, depth: maximumDepth,
                lineLength: maximumLineLength, valueByteCount: maximumValueByteCount)
        }

        private init(
            unchecked bulkStringLength: Int, arrayLength: Int, depth: Int, lineLength: Int, valueByteCount: Int
        ) {
            self.maximumBulkStringLength = bulkStringLength
            self.maximumArrayLength = arrayLength
            self.maximumDepth = depth
            self.maximumLineLength = lineLength
            self.maximumValueByteCount = valueByteCount
        }

        private static func check(_ value: Int, atLeast minimum: Int, _ name: String) throws(InvalidValueError) {
            try InvalidValueError.check(value, atLeast: minimum, "RESPParser.Limits.\(name)")
        }
    }
}
