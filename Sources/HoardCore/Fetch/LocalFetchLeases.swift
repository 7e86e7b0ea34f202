import CHoardSupport
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

/// Fetch leases among the processes that share a cache folder: one fetch per key on a machine,
/// as a shared tier's leases make one per key across machines.
///
/// A lease is an exclusive open-file-description lock on one byte of `<cache folder>/fetch-leases`
/// (an empty file), at an offset taken from the SHA-256 of the key. The kernel drops a holder's
/// locks when it exits, however it exits, so a killed holder frees its keys at once; a stopped
/// one holds them until the waiters' bound (``Hoard/Configuration/fetchLeaseDuration``) passes.
/// Two keys share a byte with odds of 2⁻⁶²; they would then fetch one after the other, never
/// wrongly. The file is opened on the first miss (a warm run never opens it), created with
/// `O_NOFOLLOW` and used only when it is a regular file; without it (another system, a file
/// system without these locks) every lease is ``FetchLease/unavailable`` and callers fetch alone.
final class LocalFetchLeases: Sendable {
    /// The lease file's name in the cache folder.
    static let fileName = "fetch-leases"

    private let path: String
    private let logger: Logger
    /// The lease file's descriptor once opened; `.some(nil)` once it proved unusable.
    private let file = Lock<Int32??>(nil)

    /// - Parameters:
    ///   - directory: The cache folder (the disk tier has checked that it is one).
    ///   - logger: Where an unusable lease file is reported, once.
    init(directory: URL, logger: Logger) {
        path = directory.appendingPathComponent(Self.fileName).path(percentEncoded: false)
        self.logger = logger
    }

    deinit {
        if case let descriptor?? = file.withLock({ $0 }) { FileSystem.close(descriptor) }
    }

    /// Takes the lease on `key` unless another process (or another cache on this folder) holds it.
    func acquire(forKey key: String) -> FetchLease {
        guard let descriptor = descriptor(), let offset = Self.offset(of: key) else { return .unavailable }
        switch hoard_record_try_lock(descriptor, offset) {
        case 1: return .acquired(token: "")
        case 0: return .heldElsewhere
        default: return .unavailable
        }
    }

    /// Releases the lease on `key` taken with ``acquire(forKey:)``.
    func release(forKey key: String) {
        guard let descriptor = descriptor(), let offset = Self.offset(of: key) else { return }
        _ = hoard_record_unlock(descriptor, offset)
    }

    /// Whether another holder has the lease on `key`; `nil` when that cannot be known.
    func isHeld(forKey key: String) -> Bool? {
        guard let descriptor = descriptor(), let offset = Self.offset(of: key) else { return nil }
        switch hoard_record_is_locked(descriptor, offset) {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }

    // MARK: - Private

    /// The lease file, opened (and created) on first use.
    private func descriptor() -> Int32? {
        file.withLock { state in
            if let opened = state { return opened }
            let opened = open()
            state = .some(opened)
            return opened
        }
    }

    private func open() -> Int32? {
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK
        switch FileSystem.open(path, flags: flags, mode: 0o600) {
        case .failure(let error):
            logger.warning(
                "Cannot open the fetch lease file; processes sharing the cache fetch on their own",
                metadata: ["path": .string(path), "error": .string("\(error)")])
            return nil
        case .success(let descriptor):
            guard case .success(let status) = FileSystem.status(of: descriptor), status.kind == .regular else {
                FileSystem.close(descriptor)
                logger.warning(
                    "The fetch lease file is not a regular file; processes sharing the cache fetch on their own",
                    metadata: ["path": .string(path)])
                return nil
            }
            return descriptor
        }
    }

    /// The byte that stands for `key`: the first 8 bytes of its SHA-256 (the C side keeps 62 bits).
    private static func offset(of key: String) -> UInt64? {
        guard let digest = SHA256.hash(utf8: key) else { return nil }
        return digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
