import CHoardSupport
import Synchronization

/// A `Synchronization.Mutex` whose critical sections ThreadSanitizer can see.
///
/// On Linux, `Mutex` takes its lock inside the Synchronization library, which is not built with
/// ThreadSanitizer, so TSan never learns that one critical section ends before the next begins and
/// reports every value a `Mutex` guards as a race. `Lock` tells TSan about each acquire and release
/// (calls that do nothing unless the package is built with `--sanitize=thread`). Hoard, its tool
/// and its tests use it wherever they would use `Mutex`; it is `package`, not part of the API.
///
/// ```swift
/// let counter = Lock(0)
/// counter.withLock { $0 += 1 }
/// ```
@usableFromInline
package struct Lock<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    // Sendable: the value is only reached through `mutex`; `identity` is never written or read.
    @usableFromInline let mutex: Mutex<Value>
    /// A byte of its own whose address names this lock to TSan. (The guarded value's address would
    /// do, but taking it is itself an access that TSan would see before the acquire.)
    @usableFromInline let identity: UnsafeMutableRawPointer

    /// Creates a lock guarding `initialValue`.
    @inlinable
    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
        identity = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
    }

    @inlinable
    deinit {
        identity.deallocate()
    }

    /// Calls `body` with exclusive access to the guarded value.
    ///
    /// - Throws: What `body` throws.
    /// - Complexity: One `Mutex` lock and unlock.
    @inlinable
    package borrowing func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(Failure) -> sending Result in
            hoard_tsan_acquire(identity)
            defer { hoard_tsan_release(identity) }
            return try body(&value)
        }
    }
}
