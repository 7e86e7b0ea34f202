import Foundation
import HoardTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small tmpfs mounted for one test: as root, permission bits do not stop writes, so a full or
/// read-only file system is the way to see a write fail.
enum Tmpfs {
    static let isRoot = getuid() == 0

    /// Whether this process can mount a tmpfs (root on Linux with mount rights), probed once.
    static let canMount: Bool = {
        #if os(Linux)
            guard isRoot, let probe = try? TemporaryDirectory(function: "tmpfs-probe") else { return false }
            defer { probe.remove() }
            guard (try? mount(at: probe.path, byteCount: 64 * 1024)) != nil else { return false }
            unmount(probe.path)
            return true
        #else
            return false
        #endif
    }()

    /// Whether the unwritable-folder test can run: by permission bits when not root, by a tmpfs as root.
    static let canMakeUnwritableFolder = !isRoot || canMount

    struct MountError: Error, CustomStringConvertible {
        var errno: Int32
        var description: String { "mount failed: \(String(cString: strerror(errno)))" }
    }

    static func mount(at path: String, byteCount: Int) throws {
        #if os(Linux)
            guard Glibc.mount("tmpfs", path, "tmpfs", 0, "size=\(byteCount)") == 0 else {
                throw MountError(errno: errno)
            }
        #else
            throw MountError(errno: ENOTSUP)
        #endif
    }

    /// Makes `folder`'s cache folder and mounts a tmpfs of `byteCount` bytes on it: a small disk
    /// for the cache to fill. Unmount it with ``unmount(_:)``.
    static func mountCacheFolder(of folder: TemporaryDirectory, byteCount: Int) throws {
        try FileManager.default.createDirectory(at: folder.cacheURL, withIntermediateDirectories: true)
        try mount(at: folder.cacheURL.path, byteCount: byteCount)
    }

    static func remountReadOnly(_ path: String) throws {
        #if os(Linux)
            guard Glibc.mount("tmpfs", path, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
                throw MountError(errno: errno)
            }
        #else
            throw MountError(errno: ENOTSUP)
        #endif
    }

    static func unmount(_ path: String) {
        #if os(Linux)
            _ = umount2(path, Int32(MNT_DETACH))
        #endif
    }
}
