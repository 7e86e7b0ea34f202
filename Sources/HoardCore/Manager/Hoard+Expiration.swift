import Foundation

extension Hoard {
    /// Marks every value stored until now as expired, in every tier and for every process that
    /// uses this cache's folder, and, with a ``SharedCacheTier``, for every machine that shares it.
    ///
    /// No entry is read or rewritten: the moment is written to a small file in the cache folder
    /// (`expired-before`), and every read treats a value stored before it as expired. This process
    /// sees it at once; other processes within their ``Configuration/expirationMarkRefreshInterval``.
    /// Expired values stay stored until replaced, evicted or trimmed, so that
    /// ``CachePolicy/networkElseCache`` can still fall back on them.
    ///
    /// ```swift
    /// try await hoard.expireAll()   // the user signed out: nothing cached so far is current
    /// ```
    ///
    /// - Throws: ``HoardError/tier(_:underlying:)`` when the mark file cannot be written; the mark still
    ///   applies in this process.
    /// - Complexity: O(1): one small file write.
    public func expireAll() async throws {
        let mark = try await marks.expireAll()
        monitor.record(.expiredAll(before: mark))
    }

    /// Calls ``expireAll()`` for every element of `events`, until the sequence ends or the returned
    /// task is cancelled.
    ///
    /// Failures are logged as warnings. The task holds the `Hoard` weakly.
    ///
    /// ```swift
    /// let trigger = hoard.expireAll(whenever: accountChanges)   // any AsyncSequence
    /// // ...
    /// trigger.cancel()
    /// ```
    ///
    /// - Parameter events: Each element, whatever its value, expires the cache.
    /// - Returns: The task that listens; cancel it to stop.
    @discardableResult
    public func expireAll<Events: AsyncSequence & Sendable>(whenever events: Events) -> Task<Void, Never> {
        Task { [weak self] in
            do {
                for try await _ in events {
                    guard let self else { return }
                    do {
                        try await self.expireAll()
                    } catch {
                        self.logger.warning("Cannot expire the cache", metadata: ["error": "\(error)"])
                    }
                }
            } catch {
                self?.logger.warning("The events that expire the cache failed", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Calls ``expireAll()`` whenever `center` posts a notification named `name`, until the
    /// returned task is cancelled.
    ///
    /// The observer is registered before this returns, so a notification posted right after is
    /// not missed. Notifications that arrive while one expiry is being written lead to one more.
    ///
    /// ```swift
    /// let trigger = hoard.expireAll(onNotificationNamed: .userDidSignOut)
    /// NotificationCenter.default.post(name: .userDidSignOut, object: nil)
    /// ```
    ///
    /// - Parameters:
    ///   - name: The notification's name.
    ///   - center: The notification center (default `.default`).
    /// - Returns: The task that listens; cancel it to remove the observer.
    @discardableResult
    public func expireAll(
        onNotificationNamed name: Notification.Name, center: NotificationCenter = .default
    ) -> Task<Void, Never> {
        let (posts, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let observer = NotificationObserver(
            center: center,
            token: center.addObserver(forName: name, object: nil, queue: nil) { _ in continuation.yield() })
        continuation.onTermination = { _ in observer.remove() }
        return expireAll(whenever: posts)
    }
}

/// A `NotificationCenter` registration, removed once.
///
/// `@unchecked Sendable`: the token is only handed back to `removeObserver(_:)`, which
/// `NotificationCenter` allows from any thread, and it is never mutated.
private final class NotificationObserver: @unchecked Sendable {
    let center: NotificationCenter
    let token: any NSObjectProtocol

    init(center: NotificationCenter, token: any NSObjectProtocol) {
        self.center = center
        self.token = token
    }

    func remove() {
        center.removeObserver(token)
    }
}

extension Hoard {
    /// How many times this cache has read and applied its shared tier's marks (once a second):
    /// for a test that waits for the watch to have seen what it did.
    package var sharedMarkWatchRounds: Int { marks.rounds }
}
