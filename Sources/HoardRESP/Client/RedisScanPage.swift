/// One page of a `SCAN`: the keys it returned and the cursor that continues the scan.
///
/// A scan is complete when the cursor comes back as 0. A key may appear on several pages, and
/// keys added or removed during the scan may or may not appear (Redis's `SCAN` guarantees).
///
/// ```swift
/// var cursor: UInt64 = 0
/// repeat {
///     let page = try await client.scan(cursor: cursor, matching: "thumbnails:*", count: 500)
///     for key in page.keys { print(key.count) }
///     cursor = page.cursor
/// } while cursor != 0
/// ```
public struct RedisScanPage: Sendable, Hashable {
    /// The cursor for the next page; 0 when the scan is complete.
    public var cursor: UInt64
    /// The keys on this page, as bytes (keys are binary-safe).
    public var keys: [[UInt8]]

    /// Whether this is the last page (the cursor is 0).
    ///
    /// ```swift
    /// if page.isLastPage { break }
    /// ```
    ///
    /// - Complexity: O(1).
    public var isLastPage: Bool { cursor == 0 }

    /// A page of `keys`, continued from `cursor`.
    ///
    /// ```swift
    /// let page = RedisScanPage(cursor: 0, keys: [Array("a".utf8)])
    /// ```
    ///
    /// - Parameters:
    ///   - cursor: The cursor for the next page.
    ///   - keys: The keys on this page.
    /// - Complexity: O(1).
    public init(cursor: UInt64, keys: [[UInt8]]) {
        self.cursor = cursor
        self.keys = keys
    }
}
