extension Hoard {
    /// The `"default"` cache under the name the original Hoard gave it.
    @available(*, deprecated, renamed: "shared")
    public static var sharedCache: Hoard { shared }

    /// Stores `object` under `key` and then calls `completion` once, whether the store succeeded
    /// or not (failures are logged). The original Hoard spelling; new code can use
    /// ``store(_:forKey:expiry:)-(_,String,_)``.
    ///
    /// Calls of the completion-handler API take effect in the order they were made, per key: a
    /// ``retrieve(_:completion:)`` or ``remove(_:completion:)`` of the same key made after this
    /// call (from the same thread, or otherwise after it returned) runs after this store has
    /// finished, even when nobody waits for `completion`. Calls on different keys run concurrently.
    ///
    /// ```swift
    /// Hoard.shared.store(key: "image", object: image, completion: nil)
    /// Hoard.shared.retrieve("image") { (image: Image?) in show(image) }  // sees the store
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - object: The value.
    ///   - completion: Called exactly once, on a task of Swift's global concurrent executor: never
    ///     on the calling thread nor on the main actor (hop there yourself to touch UI).
    public func store<T: Cachable>(key: String, object: T, completion: (@Sendable () -> Void)? = nil) {
        completionQueue.enqueue(key: key) { [self] in
            do {
                try await store(object, forKey: key)
            } catch {
                logger.warning("store failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            completion?()
        }
    }

    /// Reads the value under `key` and calls `completion` once with it, or with `nil` on a miss,
    /// an expired value, a type mismatch or an error (errors are logged). The original Hoard
    /// spelling; new code can use ``retrieve(_:forKey:)-(_,String)``.
    ///
    /// It runs after every earlier completion-handler call on the same key has finished (see
    /// ``store(key:object:completion:)``), so it sees their stores and removals.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - completion: Called exactly once, on a task of Swift's global concurrent executor: never
    ///     on the calling thread nor on the main actor.
    public func retrieve<T: Cachable>(_ key: String, completion: @escaping @Sendable (T?) -> Void) {
        completionQueue.enqueue(key: key) { [self] in
            do {
                completion(try await retrieve(T.self, forKey: key))
            } catch {
                logger.warning("retrieve failed", metadata: ["key": "\(key)", "error": "\(error)"])
                completion(nil)
            }
        }
    }

    /// The original Hoard spelling of ``retrieve(_:completion:)``, with the key labelled.
    ///
    /// ```swift
    /// Hoard.shared.retrieve(key: "image") { (image: Image?) in show(image) }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - completion: Called exactly once, as for ``retrieve(_:completion:)``.
    public func retrieve<T: Cachable>(key: String, completion: @escaping @Sendable (T?) -> Void) {
        retrieve(key, completion: completion)
    }

    /// Removes the value under `key` and calls `completion` once, whether removal succeeded or not
    /// (failures are logged). The original Hoard spelling; new code can use ``remove(forKey:)``.
    ///
    /// It runs after every earlier completion-handler call on the same key has finished, and before
    /// every later one (see ``store(key:object:completion:)``).
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - completion: Called exactly once, on a task of Swift's global concurrent executor: never
    ///     on the calling thread nor on the main actor.
    public func remove(_ key: String, completion: (@Sendable () -> Void)? = nil) {
        completionQueue.enqueue(key: key) { [self] in
            do {
                try await remove(forKey: key)
            } catch {
                logger.warning("remove failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            completion?()
        }
    }

    /// Runs `operation` in order with the completion-handler calls on `key`: for modules that add
    /// completion forms over their own key types.
    package func enqueueCompletion(key: String, _ operation: @escaping @Sendable () async -> Void) {
        completionQueue.enqueue(key: key, operation)
    }
}
