import HoardSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock(2)` on a folder, waited for at most a given time: what serializes the
/// making of a new index between processes.
///
/// Invariant: the wait is bounded. When the lock cannot be had in time (a process stopped while
/// it held it), the caller goes on without it, as it would with no lock at all; the kernel drops a
/// dead holder's lock.
struct FolderLock {
    private let descriptor: Int32?

    /// Takes the lock on the folder at `path`, waiting at most `limit`.
    init(path: String, waitingAtMost limit: Duration) {
        guard case .success(let opened) = FileSystem.open(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC) else {
            descriptor = nil
            return
        }
        let deadline = ContinuousClock.now + limit
        while true {
            switch FileSystem.tryLockExclusive(opened) {
            case .success(true):
                descriptor = opened
                return
            case .success(false) where ContinuousClock.now < deadline:
                usleep(1_000)
            default:  // held past the limit, or no flock here
                FileSystem.close(opened)
                descriptor = nil
                return
            }
        }
    }

    /// Gives the lock back (call once).
    func unlock() {
        if let descriptor { FileSystem.close(descriptor) }
    }
}
