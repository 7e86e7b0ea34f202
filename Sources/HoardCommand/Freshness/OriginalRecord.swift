import Foundation
import Hoard

/// What the tool keeps about a downloaded original besides its bytes: which bytes they are (their
/// SHA-256) and what HTTP says about their freshness. A small entry of its own
/// (``ThumbnailSettings/originalRecordKey(identifier:)``), so that a warm run learns whether an
/// original is fresh without reading it.
///
/// ```swift
/// let record = OriginalRecord(digest: hex, byteCount: data.count, freshness: freshness)
/// try await hoard.store(record, forKey: ThumbnailSettings.originalRecordKey(identifier: identifier))
/// ```
struct OriginalRecord: Sendable, Equatable, Codable, Cachable {
    /// The layout this build writes; a record of another layout is ignored (the original is then
    /// downloaded again).
    static let currentVersion = 1

    /// The layout of this record.
    var version = Self.currentVersion
    /// The hex SHA-256 of the original's bytes.
    var digest: String
    /// The original's size in bytes.
    var byteCount: Int
    /// The response's caching fields and times.
    var freshness: HTTPFreshness

    /// A stable name, whatever module a toolchain gives the type.
    static var cacheTypeIdentifier: String { "HoardCommand.OriginalRecord" }
}
