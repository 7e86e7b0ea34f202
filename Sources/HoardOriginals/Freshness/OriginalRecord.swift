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
    package var freshness: HTTPFreshness {
        didSet { freshUntil = freshness.freshUntil }
    }
    /// `freshness.freshUntil`, worked out when the record is made or read rather than each time a
    /// warm variant asks whether its original is fresh (it parses `Cache-Control` and dates). Not
    /// stored: a record's bytes are those of its four other properties.
    package private(set) var freshUntil: Date?

    /// A record of the original whose SHA-256 is `digest`, with its response's `freshness`.
    package init(digest: String, byteCount: Int, freshness: HTTPFreshness) {
        self.digest = digest
        self.byteCount = byteCount
        self.freshness = freshness
        freshUntil = freshness.freshUntil
    }

    private enum CodingKeys: String, CodingKey {
        case version, digest, byteCount, freshness
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        digest = try container.decode(String.self, forKey: .digest)
        byteCount = try container.decode(Int.self, forKey: .byteCount)
        freshness = try container.decode(HTTPFreshness.self, forKey: .freshness)
        freshUntil = freshness.freshUntil
    }

    /// Whether the original may be used at `now` without asking its server
    /// (``HTTPFreshness/isFresh(at:)``, from ``freshUntil``).
    package func isFresh(at now: Date) -> Bool {
        freshUntil.map { now < $0 } ?? false
    }

    /// A stable name, whatever module a toolchain gives the type.
    package static var cacheTypeIdentifier: String { "HoardCommand.OriginalRecord" }
}
