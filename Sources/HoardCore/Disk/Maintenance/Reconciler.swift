import Foundation
import HoardSystem
import Logging

/// Brings the index in step with the folder: opens (or makes) the index, indexes entry files it
/// does not know, drops rows whose files are gone, and rebuilds an index found damaged.
///
/// Invariant: after a reconciliation every entry file the index names exists and every valid
/// entry file is named (or removed as a stale copy), checked again under the index's write lock,
/// so that a file a writer is renaming into place with its row is neither removed nor indexed
/// twice; entries whose records survive damage are kept or dropped, never made wrong.
final class Reconciler: Sendable {
    let index: DiskIndex
    let segments: SegmentStore
    let files: FileStore
    let configuration: DiskCache.Configuration

    init(index: DiskIndex, segments: SegmentStore, files: FileStore, configuration: DiskCache.Configuration) {
        self.index = index
        self.segments = segments
        self.files = files
        self.configuration = configuration
    }

    /// Opens the index, creating it when new; with `indexingEntryFiles` (a cache of the earlier,
    /// unindexed format) indexes the entry files found in the folder, then marks the folder as
    /// the current format. A database that is damaged or is not one is rebuilt; one that is
    /// missing or empty in a cache of the current format is rebuilt from the entry files.
    ///
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` when `index.sqlite`, or SQLite's
    ///   `-wal`, `-shm` or `-journal` file beside it, is not a regular file; ``DiskCacheError``
    ///   when the index cannot be created.
    func openIndex(indexingEntryFiles: Bool) throws {
        // SQLite opens the database and the files beside it by name: each must be a regular file
        // (or absent), never a link that would have SQLite write elsewhere.
        for path in [index.path] + DiskIndex.companionSuffixes.map({ index.path + $0 }) {
            if case .success(let status) = FileSystem.linkStatus(path), status.kind != .regular {
                throw DiskCacheError.foreignItem(path: path, reason: "not a regular file (\(status.kind))")
            }
        }
        let isNew: Bool
        do {
            isNew = try index.prepare()
        } catch let error as SQLiteError where error.isCorruption && index.beginRebuild() {
            defer { index.endRebuild() }
            try rebuild(after: error, openedAs: nil)
            isNew = false
        } catch let error as SQLiteError {
            throw index.error(for: error, writing: true)
        }
        index.reserve.make()
        if isNew, !indexingEntryFiles {
            // A new index in a cache of the current format: the folder is new (nothing to index),
            // or the index was removed or emptied behind the cache's back.
            let adopted = try reconcile()
            if adopted > 0 {
                configuration.logger.warning(
                    "Disk cache index was missing: indexed the entry files; entries kept inside it are lost",
                    metadata: ["path": .string(index.path), "entries": "\(adopted)"])
            }
        }
        guard indexingEntryFiles else { return }
        let adopted = try reconcile()
        configuration.logger.info(
            "Indexed the entry files of a disk cache made by an earlier Hoard",
            metadata: ["path": .string(files.folder.rootPath), "entries": "\(adopted)"])
        try CacheFolder.writeMarker(in: files.folder.rootPath)
    }

    /// Brings the index in step with the entry files in the folder: a valid file the index does
    /// not know is indexed (what a crash between a file's rename and its row, or an earlier Hoard,
    /// leaves); a damaged or expired one is removed; a file whose key the index keeps inline is a
    /// stale copy and is removed; and a row whose file is gone is removed.
    ///
    /// ``DiskCache/trim()`` runs this; so does opening a cache of the earlier format, and rebuilding a
    /// damaged index.
    ///
    /// - Returns: How many files were indexed.
    /// - Throws: ``DiskCacheError`` when the folder cannot be listed or the index written.
    /// - Complexity: O(m) for m entry files (one `lstat` each, and a header read for each file
    ///   the index does not know) plus O(r) for the r rows that name files.
    @discardableResult
    func reconcile() throws -> Int {
        let now = configuration.now()
        // Oldest first: the files it indexes take their places in the table's order of use (see
        // ``EntryTable``) in the order they were last written, after the rows already there.
        let scanned = try files.scan().sorted { $0.status.modificationDate < $1.status.modificationDate }
        var seen = Set<String>()
        var adopted = 0
        for batch in stride(from: 0, to: scanned.count, by: 512).map({ scanned[$0..<min($0 + 512, scanned.count)] }) {
            var staleCopies: [EntryFiles.Scanned] = []
            var unknown: [EntryFiles.Scanned] = []
            try index.withDatabase(writing: false) { connection in
                for file in batch {
                    guard let hash = SHA256.bytes(fromHex: file.fileName) else { continue }
                    seen.insert(file.fileName)
                    switch try EntryTable(connection: connection).row(hash)?.placement {
                    case .file: break
                    case .inline, .segment: staleCopies.append(file)
                    case nil: unknown.append(file)
                    }
                }
            }
            var found: [(hash: [UInt8], file: FileStore.EntryFile)] = []
            for file in unknown {
                guard let hash = SHA256.bytes(fromHex: file.fileName),
                    let entry = try files.read(named: file.fileName, expectedKey: nil, options: [], now: now).file
                else { continue }  // damaged or expired: removed by the read
                found.append((hash, entry))
            }
            guard !staleCopies.isEmpty || !found.isEmpty else { continue }
            // Under the write lock, where every file is made visible together with its row: what
            // the look-up above saw is checked again, so that a file a writer has just renamed
            // into place with its row is neither removed nor indexed twice.
            try index.withDatabase(writing: true) { connection in
                try connection.writeTransaction {
                    for file in staleCopies {
                        guard let hash = SHA256.bytes(fromHex: file.fileName),
                            let placement = try EntryTable(connection: connection).row(hash)?.placement, placement != .file
                        else { continue }
                        try files.remove(file.fileName, ifSameAs: file.status)
                    }
                    for (hash, file) in found where try EntryTable(connection: connection).row(hash) == nil {
                        guard let status = files.status(of: SHA256.hex(hash)), status.isSameFile(as: file.status) else {
                            continue
                        }
                        try EntryTable(connection: connection).upsert(
                            hash: hash, header: file.header, used: file.status.modificationDate, record: nil)
                        adopted += 1
                    }
                }
            }
        }
        try removeRowsOfMissingFiles(keeping: seen)
        return adopted
    }

    /// Replaces a damaged index: logs it, removes the database (when no other process has already
    /// replaced it), creates an empty one and indexes the entry files. Records that lived inside
    /// the damaged database are lost: their keys read as misses.
    ///
    /// - Throws: ``DiskCacheError`` when the new index cannot be made.
    func rebuild(after error: SQLiteError, openedAs identity: SQLiteConnection.FileIdentity?) throws {
        configuration.logger.error(
            "Disk cache index is damaged: rebuilding it from the entry files; entries kept inside it are lost",
            metadata: ["path": .string(index.path), "error": .string(error.description)])
        try makeIndexAnew(replacing: identity)
        try reconcile()
        // The records in segment files went with the index that named them.
        try segments.compact()
    }

    /// Removes the database (the one `identity` names, or whatever is there when `nil`) and
    /// creates an empty one; the segment handles kept for the old one are let go.
    ///
    /// - Throws: ``DiskCacheError`` when the new index cannot be made.
    func makeIndexAnew(replacing identity: SQLiteConnection.FileIdentity?) throws {
        index.discardDatabase(openedAs: identity)
        segments.files.forgetAll()
        do {
            try index.prepare()
        } catch let error as SQLiteError {
            throw index.error(for: error, writing: true)
        }
    }

    // MARK: - Private

    /// Removes the rows that name a file not among `fileNames` (and still missing now, under the
    /// write lock).
    private func removeRowsOfMissingFiles(keeping fileNames: Set<String>) throws {
        let fileRows = try index.withDatabase(writing: false) { try EntryTable(connection: $0).fileRows().map(\.hash) }
        let candidates = fileRows.filter { !fileNames.contains(SHA256.hex($0)) }
        guard !candidates.isEmpty else { return }
        let removed = try index.withDatabase(writing: true) { connection in
            try connection.writeTransaction { () -> Int in
                var removed = 0
                for hash in candidates where files.status(of: SHA256.hex(hash)) == nil {
                    guard try EntryTable(connection: connection).row(hash)?.placement == .file else { continue }
                    if try files.removeEntry(hash, on: connection) { removed += 1 }
                }
                return removed
            }
        }
        if removed > 0 {
            configuration.logger.debug(
                "Removed index rows whose entry files are gone", metadata: ["path": .string(files.folder.rootPath), "rows": "\(removed)"])
        }
    }
}
