extension Hoard {
    /// Stores `object` under `key` and then calls `completion` once, whether the store succeeded
    /// or not (failures are logged). The original Hoard spelling; new code can use
    /// ``store(_:forKey:expiry:)``.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - object: The value.
    ///   - completion: Called exactly once, on a task of the global executor.
    public func store<T: Cachable>(key: String, object: T, completion: (@Sendable () -> Void)? = nil) {
        Task {
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
    /// spelling; new code can use ``retrieve(_:forKey:)``.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - completion: Called exactly once, on a task of the global executor.
    public func retrieve<T: Cachable>(_ key: String, completion: @escaping @Sendable (T?) -> Void) {
        Task {
            do {
                completion(try await retrieve(T.self, forKey: key))
            } catch {
                logger.warning("retrieve failed", metadata: ["key": "\(key)", "error": "\(error)"])
                completion(nil)
            }
        }
    }

    /// Removes the value under `key` and calls `completion` once, whether removal succeeded or not
    /// (failures are logged). The original Hoard spelling; new code can use ``remove(forKey:)``.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - completion: Called exactly once, on a task of the global executor.
    public func remove(_ key: String, completion: (@Sendable () -> Void)? = nil) {
        Task {
            do {
                try await remove(forKey: key)
            } catch {
                logger.warning("remove failed", metadata: ["key": "\(key)", "error": "\(error)"])
            }
            completion?()
        }
    }
}
