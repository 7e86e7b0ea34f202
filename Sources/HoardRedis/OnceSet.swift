import HoardSystem

/// Remembers which things have happened once: for warnings that would repeat on every command
/// (a server refusing every write with the same error).
final class OnceSet: Sendable {
    private let seen = Lock<Set<ExactString>>([])

    /// Whether `key` is new (then it is remembered).
    func insert(_ key: String) -> Bool {
        seen.withLock { $0.insert(ExactString(key)).inserted }
    }
}
