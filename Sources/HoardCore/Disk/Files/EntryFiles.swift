import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of entries too large to share a segment: `<folder>/<2 hex digits>/<64 hex digits>`,
/// reached only through descriptors.
///
/// Invariant: every name is resolved from the cache folder's descriptor, one component at a time,
/// without following a link (`openat` with `O_NOFOLLOW`, `O_DIRECTORY` for shard folders), so no
/// operation reads, writes or deletes outside the folder. A link or a file where a shard folder
/// should be is refused (``DiskCacheError/foreignItem(path:reason:)``), never followed or removed.
final class EntryFiles: Sendable {
    /// The cache folder's path, for messages.
    let rootPath: String
    /// The cache folder, open for the `*at` calls.
    private let root: Int32

    /// Opens the cache folder (which the caller has checked or made).
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)``.
    init(rootPath: String) throws(DiskCacheError) {
        self.rootPath = rootPath
        switch FileSystem.open(rootPath, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC) {
        case .success(let descriptor): root = descriptor
        case .failure(let error): throw .directoryUnavailable(path: rootPath, call: error.call, errno: error.errno)
        }
    }

    deinit { FileSystem.close(root) }

    /// The shard folder of an entry file name: its first two hex digits.
    static func shardName(of fileName: String) -> String { String(fileName.prefix(2)) }

    /// The path of an entry file, for messages and logs only.
    func path(of fileName: String) -> String { rootPath + "/" + Self.shardName(of: fileName) + "/" + fileName }

    /// Opens the shard folder `name`: `nil` when it is missing and not `creating`.
    ///
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` for a link or a file in its place;
    ///   `directoryUnavailable` for other failures.
    func openShard(_ name: String, creating: Bool) throws(DiskCacheError) -> Int32? {
        var triedCreating = false
        while true {
            switch FileSystem.openDirectory(name, in: root) {
            case .success(let descriptor):
                return descriptor
            case .failure(let error) where error.errno == ENOENT:
                guard creating, !triedCreating else { return nil }
                triedCreating = true
                if case .failure(let error) = FileSystem.makeDirectory(name, in: root), error.errno != EEXIST {
                    throw .writeFailed(path: rootPath + "/" + name, call: error.call, errno: error.errno)
                }
            case .failure(let error) where error.errno == ELOOP || error.errno == ENOTDIR || error.errno == EMLINK:
                let isLink =
                    if case .success(let status) = FileSystem.linkStatus(name, in: root) {
                        status.kind == .symbolicLink
                    } else { false }
                throw .foreignItem(path: rootPath + "/" + name, reason: isLink ? "a symbolic link" : "not a folder")
            case .failure(let error):
                throw .directoryUnavailable(path: rootPath + "/" + name, call: error.call, errno: error.errno)
            }
        }
    }

    /// What opening an entry file found.
    enum Opened {
        /// The file, open for reading (the caller closes it).
        case file(Int32)
        /// No file (or no shard folder).
        case absent
        /// A symbolic link where the entry file should be: never followed.
        case link
        /// A link or a file where the shard folder should be: never followed, never removed.
        case foreign(String)
    }

    /// Opens the entry file `fileName` for reading, without following a link anywhere.
    ///
    /// - Throws: ``DiskCacheError/readFailed(path:call:errno:)`` for failures other than absence.
    func openForReading(_ fileName: String) throws(DiskCacheError) -> Opened {
        let shard: Int32
        do {
            guard let opened = try openShard(Self.shardName(of: fileName), creating: false) else { return .absent }
            shard = opened
        } catch .foreignItem(_, let reason) {
            return .foreign("its shard folder is \(reason)")
        }
        defer { FileSystem.close(shard) }
        switch FileSystem.open(fileName, in: shard, flags: FileSystem.readOnlyFlags) {
        case .success(let descriptor): return .file(descriptor)
        case .failure(let error) where error.errno == ENOENT || error.errno == ENOTDIR: return .absent
        case .failure(let error) where error.errno == ELOOP || error.errno == EMLINK: return .link
        case .failure(let error): throw .readFailed(path: path(of: fileName), call: error.call, errno: error.errno)
        }
    }

    /// The `lstat` of entry file `fileName`, or `nil` when there is none.
    func status(of fileName: String) -> FileStatus? {
        guard let shard = try? openShard(Self.shardName(of: fileName), creating: false) else { return nil }
        defer { FileSystem.close(shard) }
        if case .success(let status) = FileSystem.linkStatus(fileName, in: shard) { return status }
        return nil
    }

    /// Moves the temporary file `name` (in the folder open as `temporaryDirectory`) over entry
    /// file `fileName`, making the shard folder when it is missing.
    ///
    /// - Returns: `false` when the temporary file is gone (a clean-up took it for abandoned).
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` when the shard folder is not the
    ///   cache's; `writeFailed` naming the call.
    func moveIntoPlace(temporary name: String, in temporaryDirectory: Int32, as fileName: String) throws(DiskCacheError) -> Bool {
        guard let shard = try openShard(Self.shardName(of: fileName), creating: true) else {
            throw .writeFailed(path: path(of: fileName), call: "mkdirat", errno: ENOENT)
        }
        defer { FileSystem.close(shard) }
        switch FileSystem.rename(name, in: temporaryDirectory, to: fileName, in: shard) {
        case .success: return true
        case .failure(let error) where error.errno == ENOENT: return false
        case .failure(let error): throw .writeFailed(path: path(of: fileName), call: error.call, errno: error.errno)
        }
    }

    /// Removes entry file `fileName` when it is a regular file (and, given `expected`, still that
    /// file); never a link, never a folder.
    ///
    /// - Parameter links: Remove a symbolic link there too (the link itself, never what it points
    ///   to): what a read that found one does.
    /// - Returns: The bytes the removed file held, `nil` when nothing was removed.
    /// - Throws: ``DiskCacheError/removeFailed(path:call:errno:)``.
    @discardableResult
    func remove(_ fileName: String, ifSameAs expected: FileStatus? = nil, links: Bool = false) throws(DiskCacheError) -> Int? {
        guard let shard = try? openShard(Self.shardName(of: fileName), creating: false) else { return nil }
        defer { FileSystem.close(shard) }
        guard case .success(let status) = FileSystem.linkStatus(fileName, in: shard),
            status.kind == .regular || links && status.kind == .symbolicLink
        else { return nil }
        if let expected, !(status.isSameFile(as: expected) && status.modificationDate == expected.modificationDate) {
            return nil
        }
        switch FileSystem.unlink(fileName, in: shard) {
        case .success: return status.kind == .regular ? status.byteCount : 0
        case .failure(let error) where error.errno == ENOENT: return nil
        case .failure(let error): throw .removeFailed(path: path(of: fileName), call: error.call, errno: error.errno)
        }
    }

    /// An entry file found by ``scan()``.
    struct Scanned: Sendable {
        var fileName: String
        var status: FileStatus
    }

    /// Every file with an entry name in a real shard folder, with its `lstat`; files that vanish
    /// meanwhile are skipped, and shard folders that are links are passed over.
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)`` when the folder cannot be listed.
    func scan() throws(DiskCacheError) -> [Scanned] {
        let stream: DirectoryStream
        do {
            // A descriptor of its own: a duplicate would share (and leave at the end) the root's
            // read position.
            stream = try DirectoryStream(
                descriptor: try FileSystem.open(".", in: root, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC).get())
        } catch {
            throw .directoryUnavailable(path: rootPath, call: error.call, errno: error.errno)
        }
        var files: [Scanned] = []
        while let entry = stream.next() {
            guard Self.isShardName(entry.name),
                entry.kind == .directory || entry.kind == .unknown,
                let shard = try? openShard(entry.name, creating: false),
                let entries = try? DirectoryStream(descriptor: shard)  // takes the descriptor over
            else { continue }
            guard case .success(let listing) = FileSystem.duplicate(shard) else { continue }
            defer { FileSystem.close(listing) }
            while let file = entries.next() {
                guard Self.isEntryFileName(file.name), case .success(let status) = FileSystem.linkStatus(file.name, in: listing)
                else { continue }
                files.append(Scanned(fileName: file.name, status: status))
            }
        }
        return files
    }

    /// The SHA-256 of `key`'s UTF-8: the index's key, and (in hex) the entry file's name.
    ///
    /// - Throws: ``DiskCacheError/hashUnavailable(keyByteCount:)``.
    static func keyHash(_ key: String) throws(DiskCacheError) -> [UInt8] {
        guard let hash = SHA256.hash(utf8: key) else { throw .hashUnavailable(keyByteCount: key.utf8.count) }
        return hash
    }

    /// The SHA-256 of `key`'s UTF-8 as 64 lowercase hex digits: its entry file's name.
    ///
    /// - Throws: ``DiskCacheError/hashUnavailable(keyByteCount:)``.
    static func fileName(forKey key: String) throws(DiskCacheError) -> String {
        SHA256.hex(try keyHash(key))
    }

    /// Whether `name` looks like an entry file name (64 lowercase hex digits).
    static func isEntryFileName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy(isLowercaseHexDigit)
    }

    /// Whether `name` looks like a shard folder name (2 lowercase hex digits).
    static func isShardName(_ name: String) -> Bool {
        name.utf8.count == 2 && name.utf8.allSatisfy(isLowercaseHexDigit)
    }

    private static func isLowercaseHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
    }
}
