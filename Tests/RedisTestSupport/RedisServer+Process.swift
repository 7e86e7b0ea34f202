// The redis-server process the tests start: spawned without inheriting descriptors, reaped here,
// and a helper for a free loopback port. Self-contained, as RedisServer.swift is.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A process started with `posix_spawn` and reaped with `waitpid` here (not by Foundation's
/// `Process`, whose reaping in a test runner was seen to lag by seconds).
package final class RedisServerProcess: Sendable {
    package let identifier: pid_t
    /// The wait status once reaped.
    private let status = Mutex<Int32?>(nil)

    private init(identifier: pid_t) {
        self.identifier = identifier
    }

    /// Starts `executable` with `arguments`, standard input from /dev/null, standard output and
    /// error appended to `logPath`, no other descriptor, default signal handling and an empty
    /// signal mask.
    package static func spawn(executable: String, arguments: [String], logPath: String) throws -> RedisServerProcess {
        #if canImport(Glibc)
            var fileActions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #else
            var fileActions: posix_spawn_file_actions_t?
            var attributes: posix_spawnattr_t?
        #endif
        posix_spawn_file_actions_init(&fileActions)
        defer { posix_spawn_file_actions_destroy(&fileActions) }
        posix_spawn_file_actions_addopen(&fileActions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&fileActions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&fileActions, 1, 2)
        // Nothing else: a descriptor the server inherited (another test's pipe to a child, a
        // socket) would stay open as long as the server runs, and a reader waiting for that pipe's
        // end of file would wait for the server (seen: a tool test hung until CI's limit).
        closeInheritedDescriptors(&fileActions)
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argumentStrings = ([executable] + arguments).map { strdup($0) }
        defer { argumentStrings.forEach { free($0) } }
        var argv = argumentStrings + [nil]
        var identifier: pid_t = 0
        let result = posix_spawn(&identifier, executable, &fileActions, &attributes, &argv, environ)
        guard result == 0 else {
            throw RedisServer.Failure.didNotStart(
                reason: "posix_spawn(\(executable)): \(String(cString: strerror(result)))", log: "")
        }
        return RedisServerProcess(identifier: identifier)
    }

    #if canImport(Glibc)
        private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

        /// Adds "close every descriptor from 3 up" to `actions`: glibc's
        /// `posix_spawn_file_actions_addclosefrom_np` (2.34+, which the Glibc module does not
        /// export), else one close action per descriptor open now (in /proc/self/fd; glibc ignores
        /// a close action whose descriptor is closed by then).
        private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
            // A null handle is glibc's RTLD_DEFAULT: the symbol wherever it is loaded.
            if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
                let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
                if closeFrom(&actions, 3) == 0 { return }
            }
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
    #else
        private static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t?) {
            // Apple platforms: POSIX_SPAWN_CLOEXEC_DEFAULT would do; not tested here.
        }
    #endif

    /// The wait status if the process has exited (reaping it), else `nil`.
    package var exitStatus: Int32? {
        status.withLock { status in
            if status == nil {
                var waitStatus: Int32 = 0
                let result = waitpid(identifier, &waitStatus, WNOHANG)
                if result == identifier {
                    status = waitStatus
                } else if result < 0 && errno == ECHILD {
                    status = -1  // reaped elsewhere
                }
            }
            return status
        }
    }

    package var hasExited: Bool { exitStatus != nil }

    /// Sends `signal` unless the process was reaped (its identifier could be reused).
    package func signal(_ signal: Int32) {
        status.withLock { status in
            if status == nil { _ = kill(identifier, signal) }
        }
    }

    /// Waits until the process exits, up to `timeout`; returns whether it did.
    package func waitForExit(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !hasExited {
            guard ContinuousClock.now < deadline else { return false }
            usleep(2_000)
        }
        return true
    }
}

// File-level, where the C function is not shadowed by RedisServer's methods of the same names.

package func openStreamSocket() -> Int32 {
    #if canImport(Glibc)
        socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        socket(AF_INET, SOCK_STREAM, 0)
    #endif
}
