import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `fstat(2)`/`lstat(2)` says about a file, without C types.
package struct FileStatus: Sendable, Hashable {
    package enum Kind: Sendable, Hashable { case regular, directory, symbolicLink, other }

    package var kind: Kind
    package var byteCount: Int
    package var modificationDate: Date
    package var device: UInt64
    package var inode: UInt64
    package var linkCount: Int
    /// The owner's user ID.
    package var owner: UInt32
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: UInt32

    /// Whether both describe the same file (device and inode).
    package func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }
}

extension FileStatus {
    /// Converts a C `stat` record.
    package init(_ info: stat) {
        let type = info.st_mode & S_IFMT
        switch type {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        byteCount = Int(info.st_size)
        #if canImport(Darwin)
            let time = info.st_mtimespec
        #else
            let time = info.st_mtim
        #endif
        modificationDate = Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        linkCount = Int(info.st_nlink)
        owner = UInt32(info.st_uid)
        permissions = UInt32(info.st_mode) & 0o7777
    }
}
