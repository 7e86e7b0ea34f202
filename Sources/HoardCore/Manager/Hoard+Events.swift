extension Hoard {
    /// Counters of hits and misses per tier, stores, evictions and fetches since this instance was
    /// created, with the bytes each tier holds now.
    ///
    /// ```swift
    /// let statistics = hoard.statistics
    /// logger.info("cache: \(statistics)")   // "12 hits (10 memory, 2 disk), 3 misses, ..."
    /// ```
    ///
    /// - Complexity: O(1), except the first read before the disk tier has been scanned, which
    ///   scans it (O(m) for m entry files).
    public var statistics: HoardStatistics {
        var statistics = monitor.statistics
        statistics.memoryCount = chain.memory.count
        statistics.memoryBytes = chain.memory.totalCost
        if case .success(let disk) = disk {
            statistics.diskBytes = disk.estimatedByteCount()
        }
        return statistics
    }

    /// A stream of everything this cache does from now on: hits, misses, stores, evictions,
    /// fetches.
    ///
    /// The stream ends when its consumer stops iterating (or its task is cancelled), or when the
    /// `Hoard` is deinitialized. Events are delivered in the order they happened.
    ///
    /// ```swift
    /// let observer = Task {
    ///     for await event in hoard.events() where event.key?.hasPrefix("avatar/") == true {
    ///         print(event)
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter bufferingPolicy: What to keep when the consumer falls behind (default: every event).
    /// - Returns: The stream.
    public func events(
        bufferingPolicy: AsyncStream<HoardEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<HoardEvent> {
        monitor.subscribe(key: nil, bufferingPolicy: bufferingPolicy)
    }

    /// A stream of what this cache does with `key` from now on, with the events that concern
    /// every key (``HoardEvent/expiredAll(before:)`` and ``HoardEvent/removedAll``).
    ///
    /// ```swift
    /// for await event in hoard.events(forKey: "feed") {
    ///     if case .stored = event { reloadFeedView() }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key to follow.
    ///   - bufferingPolicy: What to keep when the consumer falls behind (default: every event).
    /// - Returns: The stream; it ends as ``events(bufferingPolicy:)``'s does.
    public func events(
        forKey key: String, bufferingPolicy: AsyncStream<HoardEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<HoardEvent> {
        monitor.subscribe(key: key, bufferingPolicy: bufferingPolicy)
    }
}
