import Foundation
import HoardSystem
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The cache's folder: its marker, its `CACHEDIR.TAG`, and its `tmp` folder.
///
/// Invariant: a folder becomes a cache only when it is new, empty or already a cache, and the
/// cache writes only into folders it made, never through a symbolic link: a folder that holds
/// anything else is refused with ``DiskCacheError/notACache(path:)``, so that pointing a cache at
/// `~` or `/` cannot delete what is there, and a `tmp` that is a link or another user's folder is
/// refused with ``DiskCacheError/foreignItem(path:reason:)``.
struct CacheFolder: Sendable {
    /// The folder's path, without a trailing slash.
    let rootPath: String
    /// The folder where large records are written before they are renamed into place.
    let temporaryDirectoryPath: String

    /// The folder at `rootPath` (not checked: see ``prepare(_:logger:)``).
    init(rootPath: String) {
        self.rootPath = rootPath
        temporaryDirectoryPath = rootPath + "/tmp"
    }

    /// The file that marks a folder as a Hoard cache, holding the format version: `.hoard-cache`.
    static let markerFileName = ".hoard-cache"

    /// The standard cache directory tag (<https://bford.info/cachedir/>): backup tools skip the folder.
    static let cacheDirectoryTagFileName = "CACHEDIR.TAG"

    /// What the folder's own small files may take: `CACHEDIR.TAG` (178 bytes), `.hoard-cache` and
    /// the manager's `expired-before` (a few dozen each), one page allowed for all three.
    static let ownFilesByteAllowance = 4096

    /// The on-disk format this version reads and writes: 2, entries indexed in `index.sqlite` and
    /// small ones kept inside it or in segment files. Format 1 (one file per entry, no index) is
    /// indexed when opened.
    static let formatVersion = 2

    /// The format before the index: one file per entry.
    static let unindexedFormatVersion = 1

    private static let markerHeading = "Hoard cache"

    private static func markerContents(version: Int = formatVersion) -> String {
        "\(markerHeading)\nformat \(version)\n"
    }

    private static let cacheDirectoryTag = """
        Signature: 8a477f597d28d172789f06886806bc55
        # This file is a cache directory tag created by Hoard.
        # For information about cache directory tags, see https://bford.info/cachedir/

        """

    /// What ``prepare(_:logger:)`` found.
    enum FolderState: Sendable, Hashable {
        /// A new or empty folder, now marked, or a cache of the current format.
        case current
        /// A cache an earlier Hoard made (format 1, or unmarked): its entry files must be indexed,
        /// then ``writeMarker(in:)`` marks it as the current format.
        case unindexed
    }

    /// Makes sure `rootPath` is a Hoard cache folder: creates it (and missing parents) with mode
    /// 0700 when it does not exist, marks it when it is empty, reports a cache of the earlier,
    /// unindexed format (or one that an older Hoard left before folders were marked), and refuses
    /// any other folder. Warns when users other than the owner may write the folder (anyone who can
    /// write it can plant entries).
    ///
    /// The path given is resolved once, when it names a folder (or once it was made): a folder
    /// reached through symbolic links (systemd's `/var/cache/NAME` with `DynamicUser=yes` is a link
    /// to `private/NAME`) is used at its real path, and from there on nothing inside it is
    /// reached through a link.
    ///
    /// - Returns: What the folder holds, and its real path.
    /// - Throws: ``DiskCacheError/notACache(path:)``, ``DiskCacheError/unsupportedFormat(path:marker:)``,
    ///   ``DiskCacheError/foreignItem(path:reason:)`` or
    ///   ``DiskCacheError/directoryUnavailable(path:call:errno:)``.
    static func prepare(_ givenPath: String, logger: Logger) throws(DiskCacheError) -> (state: FolderState, rootPath: String) {
        let rootPath = try resolve(givenPath, logger: logger)
        return (try prepareResolved(rootPath, logger: logger), rootPath)
    }

    /// Makes the folder at `path` when it is missing (and its parents), and returns its real path.
    private static func resolve(_ path: String, logger: Logger) throws(DiskCacheError) -> String {
        switch FileSystem.status(ofPath: path) {
        case .success(let status) where status.kind == .directory:
            if status.permissions & 0o022 != 0 {
                logger.warning(
                    "Disk cache folder is writable by other users: anyone who can write it can plant entries",
                    metadata: ["path": .string(path), "mode": .string(String(status.permissions, radix: 8))])
            }
        case .success:
            throw .directoryUnavailable(path: path, call: "stat", errno: ENOTDIR)
        case .failure(let error) where error.errno == ENOENT || error.errno == ENOTDIR:
            // Missing, or a file is in the way (making the folders says which).
            if case .failure(let error) = FileSystem.makeDirectoryAndParents(path) {
                throw .directoryUnavailable(path: error.path ?? path, call: error.call, errno: error.errno)
            }
        case .failure(let error):
            throw .directoryUnavailable(path: path, call: error.call, errno: error.errno)
        }
        switch FileSystem.resolvedPath(path) {
        case .success(let resolved): return resolved
        case .failure(let error): throw .directoryUnavailable(path: path, call: error.call, errno: error.errno)
        }
    }

    /// ``prepare(_:logger:)`` of a folder at its real path.
    private static func prepareResolved(_ rootPath: String, logger: Logger) throws(DiskCacheError) -> FolderState {
        switch try readMarker(in: rootPath) {
        case formatVersion: return .current
        case unindexedFormatVersion: return .unindexed
        default: break
        }
        let names: [String]
        switch FileSystem.contentsOfDirectory(rootPath) {
        case .success(let listed): names = listed
        case .failure(let error):
            throw .directoryUnavailable(path: rootPath, call: error.call, errno: error.errno)
        }
        // Empty, or only what Hoard itself makes (an unmarked cache from before markers, or another
        // process marking the folder right now); a lone `tmp` could be anybody's.
        guard names.allSatisfy(isOwnName), names.isEmpty || names.contains(where: { $0 != "tmp" }) else {
            throw .notACache(path: rootPath)
        }
        if names.contains(where: EntryFiles.isShardName) { return .unindexed }
        try writeMarker(in: rootPath)
        return .current
    }

    /// Writes the cache directory tag and the marker of the current format.
    ///
    /// - Throws: ``DiskCacheError/directoryUnavailable(path:call:errno:)``.
    static func writeMarker(in rootPath: String) throws(DiskCacheError) {
        for (name, contents) in [(cacheDirectoryTagFileName, cacheDirectoryTag), (markerFileName, markerContents())] {
            if case .failure(let error) = FileSystem.writeAtomically(Array(contents.utf8), to: rootPath + "/" + name) {
                throw .directoryUnavailable(path: error.path ?? rootPath, call: error.call, errno: error.errno)
            }
        }
    }

    /// Opens the cache's `tmp` folder without following a symbolic link, creating it (mode 0700)
    /// when missing.
    ///
    /// - Throws: ``DiskCacheError/foreignItem(path:reason:)`` when `tmp` is a symbolic link, not a
    ///   folder, or owned by another user: it is not the cache's, so nothing is written into it or
    ///   removed from it. ``DiskCacheError/writeFailed(path:call:errno:)`` when it cannot be opened
    ///   or created.
    func openTemporaryDirectory(creating: Bool) throws(DiskCacheError) -> Int32? {
        var created = false
        while true {
            switch FileSystem.openDirectory(temporaryDirectoryPath) {
            case .success(let descriptor):
                if case .success(let status) = FileSystem.status(of: descriptor), status.owner != geteuid() {
                    FileSystem.close(descriptor)
                    throw .foreignItem(path: temporaryDirectoryPath, reason: "a folder owned by another user")
                }
                return descriptor
            case .failure(let error) where error.errno == ENOENT && creating && !created:
                created = true
                if case .failure(let mkdirError) = FileSystem.makeDirectory(temporaryDirectoryPath),
                    mkdirError.errno != EEXIST
                {
                    throw .writeFailed(path: temporaryDirectoryPath, call: mkdirError.call, errno: mkdirError.errno)
                }
            case .failure(let error) where error.errno == ENOENT:
                return nil
            case .failure(let error) where error.errno == ELOOP || error.errno == ENOTDIR || error.errno == EMLINK:
                let isLink = if case .success(let status) = FileSystem.linkStatus(temporaryDirectoryPath) {
                    status.kind == .symbolicLink
                } else { false }
                throw .foreignItem(path: temporaryDirectoryPath, reason: isLink ? "a symbolic link" : "not a folder")
            case .failure(let error):
                throw .writeFailed(path: temporaryDirectoryPath, call: error.call, errno: error.errno)
            }
        }
    }

    // MARK: - Private

    /// The format version of the folder's marker (the current one or the unindexed one), or `nil`
    /// when there is none.
    ///
    /// - Throws: ``DiskCacheError/unsupportedFormat(path:marker:)`` for another version's marker;
    ///   ``DiskCacheError/foreignItem(path:reason:)`` when the marker is not a small regular file
    ///   holding a marker.
    private static func readMarker(in rootPath: String) throws(DiskCacheError) -> Int? {
        let path = rootPath + "/" + markerFileName
        let descriptor: Int32
        switch FileSystem.open(path, flags: FileSystem.readOnlyFlags) {
        case .success(let opened): descriptor = opened
        case .failure(let error) where error.errno == ENOENT: return nil
        case .failure(let error) where error.errno == ELOOP || error.errno == EMLINK:
            throw .foreignItem(path: path, reason: "a symbolic link")
        case .failure(let error): throw .directoryUnavailable(path: path, call: error.call, errno: error.errno)
        }
        defer { FileSystem.close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 256)
        guard case .success(let status) = FileSystem.status(of: descriptor), status.kind == .regular,
            case .success(let count) = buffer.withUnsafeMutableBytes({ FileSystem.readFully(descriptor, into: $0, at: 0) }),
            count < buffer.count
        else { throw .foreignItem(path: path, reason: "not a Hoard marker file") }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        for version in [formatVersion, unindexedFormatVersion] where text == markerContents(version: version) {
            return version
        }
        guard text.hasPrefix(markerHeading + "\n") else {
            throw .foreignItem(path: path, reason: "not a Hoard marker file")
        }
        throw .unsupportedFormat(path: rootPath, marker: text.split(separator: "\n").joined(separator: ", "))
    }

    /// Whether `name` is one Hoard gives the things it keeps in a cache folder.
    private static func isOwnName(_ name: String) -> Bool {
        let ownNames =
            [markerFileName, cacheDirectoryTagFileName, ExpirationMark.fileName, DiskIndex.fileName, SpaceReserve.fileName]
            + DiskIndex.companionSuffixes.map { DiskIndex.fileName + $0 }
        if name == "tmp" || EntryFiles.isShardName(name) || ownNames.contains(name) || SegmentFiles.id(inFileName: name) != nil {
            return true
        }
        // What `FileSystem.writeAtomically` writes on the way to one of those.
        return name.hasSuffix(".tmp") && ownNames.contains { name.hasPrefix($0 + ".") }
    }
}
