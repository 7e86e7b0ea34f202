import Foundation
import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The segment files of one cache folder that this process has open, shared by its threads.
///
/// Invariant: bytes at a committed segment and offset never change while the file exists, and
/// only a regular file with one name, made by the cache, is ever written.
///
/// A segment file (`segment-<id>` in the cache folder) holds records one after another. Bytes are
/// only ever appended at the committed end, under the index's write lock, and a segment's
/// identifier is never used twice (the index's `segments` table is `AUTOINCREMENT`), so the bytes
/// at a segment and offset that a row names never change while the file exists: a reader needs
/// no lock beyond the index lookup that gave it the location. A file is removed only when no row
/// names it (compaction moved its records away); a reader that looked it up just before still
/// reads it through a handle it has open, or finds it gone and looks the key up again.
///
/// Handles are opened without following symbolic links, only on regular files (for appending,
/// only on files with no other name, and a new segment only on a file this call creates), and
/// kept open until the file is found unlinked (checked at most once per ``recheckInterval`` for
/// reading, before every append for writing), so that this process does not keep the space of a
/// removed segment, nor append to one.
final class SegmentFiles: Sendable {
    /// An open segment file; closed when the last reader lets it go.
    final class Handle: Sendable {
        let descriptor: Int32
        let path: String

        init(descriptor: Int32, path: String) {
            self.descriptor = descriptor
            self.path = path
        }

        deinit { FileSystem.close(descriptor) }
    }

    /// Why a segment file cannot be opened.
    enum OpenFailure: Error, Sendable {
        /// The file is not there (removed by a compaction, or never written).
        case missing
        /// Something the cache must not write or read there (a link, a folder, a file with another
        /// name, a file it did not make): left alone. The associated value says what.
        case foreign(String)
        /// A system call failed.
        case system(SystemCallError)
    }

    /// How often a kept handle is checked for a file that has been unlinked.
    static let recheckInterval: Duration = .seconds(1)
    /// How many handles are kept open at most; past it, one is let go for each one opened (a
    /// reader still using it keeps it until done). A large cache has hundreds of segments, and a
    /// process has a limit on open files.
    static let maximumKeptHandles = 64

    private let rootPath: String
    private let handles = Lock([Key: (handle: Handle, nextCheck: MonotonicInstant)]())

    private struct Key: Hashable {
        var id: Int
        var writable: Bool
    }

    init(rootPath: String) {
        self.rootPath = rootPath
    }

    /// The file name of segment `id`.
    static func fileName(of id: Int) -> String { "segment-\(id)" }

    /// The identifier in a segment file's name, or `nil` when `name` is not one.
    static func id(inFileName name: String) -> Int? {
        guard name.hasPrefix("segment-") else { return nil }
        let digits = name.utf8.dropFirst(8)
        guard (1...18).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int(String(decoding: digits, as: UTF8.self))
    }

    /// The path of segment `id`.
    func path(of id: Int) -> String { rootPath + "/" + Self.fileName(of: id) }

    /// An open handle on segment `id`: for reading, or (`writable`) for appending, created when
    /// missing. Call `writable` only under the index's write lock.
    ///
    /// - Parameter creating: Segment `id` is new (its row is not committed yet): the file is made
    ///   by this call. A regular file already there is what a store killed before its commit left
    ///   (no committed row can name it), and is replaced; anything else there is refused.
    func handle(_ id: Int, writable: Bool, creating: Bool = false) -> Result<Handle, OpenFailure> {
        let key = Key(id: id, writable: writable)
        let now = MonotonicInstant.now
        // A new segment's file is made here, whatever handle is kept under its id.
        if !creating, let kept = keptHandle(key, now: now) { return .success(kept) }
        let path = path(of: id)
        if creating, case .success(let stray) = FileSystem.linkStatus(path),
            stray.kind == .regular, stray.linkCount == 1
        {
            _ = FileSystem.unlink(path)
        }
        let flags =
            writable ? O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | (creating ? O_EXCL : 0) : FileSystem.readOnlyFlags
        let descriptor: Int32
        switch FileSystem.open(path, flags: flags) {
        case .success(let opened): descriptor = opened
        case .failure(let error) where error.errno == ENOENT: return .failure(.missing)
        case .failure(let error) where error.errno == ELOOP || error.errno == EMLINK:
            return .failure(.foreign("a symbolic link"))
        case .failure(let error) where error.errno == EISDIR:
            return .failure(.foreign("a folder"))
        case .failure(let error) where error.errno == EEXIST:
            return .failure(.foreign("something already there where a new segment goes"))
        case .failure(let error): return .failure(.system(error))
        }
        let handle = Handle(descriptor: descriptor, path: path)
        switch FileSystem.status(of: descriptor) {
        case .success(let status) where status.kind != .regular:
            return .failure(.foreign("not a regular file (\(status.kind))"))
        // Another name for the file (a hard link) means it is not the cache's alone to write.
        case .success(let status) where writable && status.linkCount != 1:
            return .failure(.foreign("a file with \(status.linkCount) names (hard links)"))
        case .success: break
        case .failure(let error): return .failure(.system(error))
        }
        handles.withLock { handles in
            if handles.count >= Self.maximumKeptHandles, let any = handles.keys.first { handles[any] = nil }
            handles[key] = (handle, now.advanced(by: Self.recheckInterval))
        }
        return .success(handle)
    }

    /// Forgets the handles on segment `id` (its file was removed); readers still using one keep it.
    func forget(_ id: Int) {
        handles.withLock { handles in
            handles[Key(id: id, writable: false)] = nil
            handles[Key(id: id, writable: true)] = nil
        }
    }

    /// The handle kept under `key`, checked for a file since unlinked (a reader once per
    /// ``recheckInterval``, a writer every time: it must never append to a file no longer there).
    private func keptHandle(_ key: Key, now: MonotonicInstant) -> Handle? {
        handles.withLock { handles -> Handle? in
            guard let (handle, nextCheck) = handles[key] else { return nil }
            guard key.writable || now >= nextCheck else { return handle }
            // A writer needs the file to be this segment's alone (one name); a reader only that it exists.
            if case .success(let status) = FileSystem.status(of: handle.descriptor),
                key.writable ? status.linkCount == 1 : status.linkCount > 0
            {
                handles[key] = (handle, now.advanced(by: Self.recheckInterval))
                return handle
            }
            handles[key] = nil
            return nil
        }
    }

    /// How many handles are kept now.
    var keptHandleCount: Int { handles.withLock { $0.count } }

    /// Forgets every handle.
    func forgetAll() {
        handles.withLock { $0.removeAll() }
    }
}
