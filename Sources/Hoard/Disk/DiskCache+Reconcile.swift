import Foundation
import HoardSystem
import Logging

extension DiskCache {
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
            try rebuildIndex(after: error, openedAs: nil)
            isNew = false
        } catch let error as SQLiteError {
            throw indexError(error, writing: true)
        }
        if isNew, !indexingEntryFiles {
            // A new index in a cache of the current format: the folder is new (nothing to index),
            // or the index was removed or emptied behind the cache's back.
            let adopted = try reconcileIndex()
            if adopted > 0 {
                configuration.logger.warning(
                    "Disk cache index was missing: indexed the entry files; entries kept inside it are lost",
                    metadata: ["path": .string(index.path), "entries": "\(adopted)"])
            }
        }
        guard indexingEntryFiles else { return }
        let adopted = try reconcileIndex()
        configuration.logger.info(
            "Indexed the entry files of a disk cache made by an earlier Hoard",
            metadata: ["path": .string(rootPath), "entries": "\(adopted)"])
        try Self.writeMarker(in: rootPath)
    }

    /// Brings the index in step with the entry files in the folder: a valid file the index does
    /// not know is indexed (what a crash between a file's rename and its row, or an earlier Hoard,
    /// leaves); a damaged or expired one is removed; a file whose key the index keeps inline is a
    /// stale copy and is removed; and a row whose file is gone is removed.
    ///
    /// ``trim()`` runs this; so does opening a cache of the earlier format, and rebuilding a
    /// damaged index.
    ///
    /// - Returns: How many files were indexed.
    /// - Throws: ``DiskCacheError`` when the folder cannot be listed or the index written.
    /// - Complexity: O(m) for m entry files (one `lstat` each, and a header read for each file
    ///   the index does not know) plus O(r) for the r rows that name files.
    @discardableResult
    func reconcileIndex() throws -> Int {
        let now = configuration.now()
        let files = try scanEntryFiles()
        var seen = Set<String>()
        var adopted = 0
        for batch in stride(from: 0, to: files.count, by: 512).map({ files[$0..<min($0 + 512, files.count)] }) {
            var staleCopies: [ScannedFile] = []
            var unknown: [ScannedFile] = []
            try withIndex(writing: false) { connection in
                for file in batch {
                    guard let hash = SHA256.bytes(fromHex: file.fileName) else { continue }
                    seen.insert(file.fileName)
                    switch try indexRow(hash, on: connection)?.placement {
                    case .file: break
                    case .inline, .segment: staleCopies.append(file)
                    case nil: unknown.append(file)
                    }
                }
            }
            for file in staleCopies { _ = removeScannedFile(file) }
            var found: [(hash: [UInt8], file: EntryFile)] = []
            for file in unknown {
                guard let hash = SHA256.bytes(fromHex: file.fileName),
                    let entry = try readEntryFile(
                        at: file.path, fileName: file.fileName, expectedKey: nil, options: [], now: now
                    ).file
                else { continue }  // damaged or expired: removed by the read
                found.append((hash, entry))
            }
            guard !found.isEmpty else { continue }
            try withIndex(writing: true) { connection in
                try connection.writeTransaction {
                    for (hash, file) in found where try indexRow(hash, on: connection) == nil {
                        try upsertRow(
                            hash: hash, header: file.header, used: file.status.modificationDate, record: nil,
                            on: connection)
                        adopted += 1
                    }
                }
            }
        }
        try removeRowsOfMissingFiles(keeping: seen)
        return adopted
    }

    // MARK: - Private

    /// Removes the rows that name a file not among `fileNames` (and still missing now).
    private func removeRowsOfMissingFiles(keeping fileNames: Set<String>) throws {
        let fileRows = try withIndex(writing: false) { connection -> [[UInt8]] in
            let select = try connection.statement("SELECT hash FROM entries WHERE \(Placement.isFile)")
            defer { select.reset() }
            var hashes: [[UInt8]] = []
            while try select.step() { hashes.append(select.blob(0)) }
            return hashes
        }
        let missing = fileRows.filter { hash in
            guard !fileNames.contains(SHA256.hex(hash)) else { return false }
            // Written since the scan?
            if case .success = FileSystem.linkStatus(location(forHash: hash).path) { return false }
            return true
        }
        guard !missing.isEmpty else { return }
        try withIndex(writing: true) { connection in
            try connection.writeTransaction {
                for hash in missing {
                    let delete = try connection.statement("DELETE FROM entries WHERE hash = ?1 AND \(Placement.isFile)")
                    defer { delete.reset() }
                    delete.bind(1, hash)
                    while try delete.step() {}
                }
            }
        }
        configuration.logger.debug(
            "Removed index rows whose entry files are gone", metadata: ["path": .string(rootPath), "rows": "\(missing.count)"])
    }
}
