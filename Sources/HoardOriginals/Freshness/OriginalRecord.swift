import Foundation
import Hoard

/// What the tool keeps about a downloaded original besides its bytes: which bytes they are (their
/// SHA-256) and what HTTP says about their freshness. A small entry of its own
/// (``OriginalKeys/originalRecordKey(identifier:)``), so that a warm run learns whether an
/// original is fresh without reading it.
///
/// ```swift
/// let record = OriginalRecord(digest: hex, byteCount: data.count, freshness: freshness)
/// try await hoard.store(record, forKey: OriginalKeys.originalRecordKey(identifier: identifier))
/// ```
package struct OriginalRecord: Sendable, Equatable, Codable, Cachable {
    /// The layout this build writes; a record of another layout is ignored (the original is then
    /// downloaded again).
    package static let currentVersion = 1

    /// The layout of this record.
    package var version = Self.currentVersion
    /// The hex SHA-256 of the original's bytes.
    package var digest: String
    /// The original's size in bytes.
    package var byteCount: Int
    /// The response's caching fields and times.
    package var freshness: HTTPFreshness

    /// A stable name, whatever module a toolchain gives the type.
    package static var cacheTypeIdentifier: String { "HoardCommand.OriginalRecord" }
}
