#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
///
/// ```swift
/// let limit = try DescriptorLimit.raisingSoftLimitToHard()
/// print("descriptors: \(limit.soft) (was \(limit.previousSoft))")
/// ```
package struct DescriptorLimit: Sendable, Hashable {
    /// The limit in force: opening more descriptors fails with `EMFILE`.
    package var soft: Int
    /// The most the soft limit may be raised to without privileges.
    package var hard: Int
    /// The soft limit before ``raisingSoftLimitToHard()`` changed it.
    package var previousSoft: Int

    /// The limits now in force.
    package static func current() -> Result<DescriptorLimit, SystemCallError> {
        var limits = rlimit()
        guard getrlimit(Self.resource, &limits) == 0 else { return .failure(SystemCallError(call: "getrlimit", errno: errno)) }
        let soft = Self.count(limits.rlim_cur)
        return .success(DescriptorLimit(soft: soft, hard: Self.count(limits.rlim_max), previousSoft: soft))
    }

    /// Raises the soft limit to the hard one, as nginx's `worker_rlimit_nofile` does, and returns
    /// the limits after (the soft limit unchanged when it already equals the hard one).
    package static func raisingSoftLimitToHard() -> Result<DescriptorLimit, SystemCallError> {
        var limits = rlimit()
        guard getrlimit(Self.resource, &limits) == 0 else { return .failure(SystemCallError(call: "getrlimit", errno: errno)) }
        let previous = Self.count(limits.rlim_cur)
        if limits.rlim_cur != limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            // Darwin refuses more than OPEN_MAX however high the hard limit: keep the old one then.
            if setrlimit(Self.resource, &raised) == 0 { limits = raised }
        }
        return .success(
            DescriptorLimit(soft: Self.count(limits.rlim_cur), hard: Self.count(limits.rlim_max), previousSoft: previous))
    }

    private static func count(_ value: rlim_t) -> Int {
        value > rlim_t(Int.max) ? Int.max : Int(value)
    }

    #if canImport(Glibc)
        private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resource = RLIMIT_NOFILE
    #endif
}
