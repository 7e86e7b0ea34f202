import Foundation
import Hoard
import HoardSystem

@testable import HoardCore

/// A byte tier in a dictionary, that counts its calls: the second tier in the manager's tests
/// (what a shared tier such as Redis looks like to the manager), and a check that the contract
/// suite is not written around the disk.
final class DictionaryTier: CacheTier {
    struct Counts: Sendable, Equatable {
        var reads = 0
        var stores = 0
        var removes = 0
    }

    let identifier: CacheTierIdentifier
    private let state = Lock<(entries: [String: CacheTierEntry], counts: Counts)>(([:], Counts()))

    init(identifier: CacheTierIdentifier = "shared") {
        self.identifier = identifier
    }

    var counts: Counts { state.withLock { $0.counts } }
    var keys: Set<String> { state.withLock { Set($0.entries.keys) } }

    /// Puts an entry in directly, as another machine would have.
    func plant(_ entry: CacheTierEntry, forKey key: String) {
        state.withLock { $0.entries[key] = entry }
    }

    func stored(forKey key: String) -> CacheTierEntry? {
        state.withLock { $0.entries[key] }
    }

    func entry(forKey key: String) async throws -> CacheTierEntry? {
        state.withLock { state in
            state.counts.reads += 1
            return state.entries[key]
        }
    }

    func store(_ entry: CacheTierEntry, forKey key: String) async throws {
        state.withLock { state in
            state.counts.stores += 1
            state.entries[key] = entry
        }
    }

    func remove(forKey key: String) async throws {
        state.withLock { state in
            state.counts.removes += 1
            state.entries[key] = nil
        }
    }

    func removeAll() async throws {
        state.withLock { $0.entries.removeAll() }
    }

    func removeEntries(createdBefore date: Date) async throws {
        state.withLock { $0.entries = $0.entries.filter { $0.value.createdAt >= date } }
    }

    func removeEntries(
        where shouldRemove: @escaping @Sendable (String, ArraySlice<UInt8>) -> Bool
    ) async throws -> [String] {
        state.withLock { state in
            let chosen = state.entries.filter { shouldRemove($0.key, Array($0.value.bytes.prefix(16 * 1024))[...]) }.keys
            for key in chosen { state.entries[key] = nil }
            return Array(chosen)
        }
    }
}

extension CacheTierEntry {
    /// What a tier holds for a `String` stored through Hoard: its bytes tagged with the type, as
    /// another machine would have written them.
    static func typed(_ value: String, createdAt: Date, expiresAt: Date?) -> CacheTierEntry {
        CacheTierEntry(
            bytes: TypedPayload.wrap(Data(value.utf8), typeName: String.cacheTypeIdentifier), createdAt: createdAt,
            expiresAt: expiresAt)
    }
}
