import Foundation

extension Hoard {
    /// Wraps `operation` into a function with the same signature whose results are cached, keyed
    /// by where `memoize` was called (or `namespace`) and by every argument.
    ///
    /// Each call of the returned function is a ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)``
    /// call: concurrent calls with equal arguments share one run of `operation`, later ones read
    /// the cache (memory, then disk, so results outlive the process), and `policy` and `expiry`
    /// apply. The key is `memoize:<namespace>:<arguments>`, the arguments as a JSON array (each
    /// `Encodable` argument in its JSON form, others by their `description`). Without a
    /// `namespace`, the key includes the file and line of the `memoize` call, so two memoized
    /// functions never share results, and results are not reused after that line moves: pass a
    /// `namespace` for keys that stay put. With caching disabled, every call runs `operation`.
    ///
    /// ```swift
    /// func thumbnail(of url: URL, size: Int) async throws -> Image { ... }
    /// let cachedThumbnail = hoard.memoize(thumbnail, namespace: "thumbnail", expiry: .seconds(86_400))
    /// let small = try await cachedThumbnail(url, 128)   // runs thumbnail(of:size:) once per (url, size)
    /// ```
    ///
    /// - Parameters:
    ///   - operation: The function; any number of `Sendable` arguments, a ``Cachable`` result.
    ///   - namespace: The key's prefix; `nil` means the `memoize` call's file, line and function.
    ///   - policy: How each call uses the cache (default ``CachePolicy/cacheElseFetch``).
    ///   - expiry: The expiry of each result; `nil` means ``Configuration/defaultExpiry``.
    ///   - file: Filled in by the compiler.
    ///   - function: Filled in by the compiler.
    ///   - line: Filled in by the compiler.
    /// - Returns: The memoized function. It throws what
    ///   ``value(forKey:policy:expiry:expirationPolicy:reset:fetch:)`` throws.
    public func memoize<each Argument: Sendable, Result: Cachable>(
        _ operation: @escaping @Sendable (repeat each Argument) async throws -> Result,
        namespace: String? = nil, policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) -> @Sendable (repeat each Argument) async throws -> Result {
        memoized(
            operation, namespace: namespace ?? MemoizationKey.namespace(file: file, function: function, line: line),
            key: { (arguments: repeat each Argument) in MemoizationKey.arguments(repeat each arguments) },
            policy: policy, expiry: { _ in expiry })
    }

    /// Wraps `operation` into a function with the same signature whose results are cached, keyed
    /// by where `memoize` was called (or `namespace`) and by the string `key` makes of the
    /// arguments: use it to leave out arguments that do not change the result.
    ///
    /// ```swift
    /// let cachedProfile = hoard.memoize(loadProfile, namespace: "profile") { id, _ in "\(id)" }
    /// let profile = try await cachedProfile(42, session)   // the session is not part of the key
    /// ```
    ///
    /// - Parameters:
    ///   - operation: The function; any number of `Sendable` arguments, a ``Cachable`` result.
    ///   - namespace: The key's prefix; `nil` means the `memoize` call's file, line and function.
    ///   - key: Makes the arguments part of the key; calls with equal strings share a result.
    ///   - policy: How each call uses the cache (default ``CachePolicy/cacheElseFetch``).
    ///   - expiry: The expiry of each result; `nil` means ``Configuration/defaultExpiry``.
    ///   - file: Filled in by the compiler.
    ///   - function: Filled in by the compiler.
    ///   - line: Filled in by the compiler.
    /// - Returns: The memoized function.
    public func memoize<each Argument: Sendable, Result: Cachable>(
        _ operation: @escaping @Sendable (repeat each Argument) async throws -> Result,
        namespace: String? = nil, key: @escaping @Sendable (repeat each Argument) -> String,
        policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) -> @Sendable (repeat each Argument) async throws -> Result {
        memoized(
            operation, namespace: namespace ?? MemoizationKey.namespace(file: file, function: function, line: line),
            key: key, policy: policy, expiry: { _ in expiry })
    }

    /// Wraps `operation`, whose result may be `nil`, into a function with the same signature whose
    /// results are cached, `nil` included: a cached `nil` is a hit and `operation` does not run.
    ///
    /// Keys are made as in ``memoize(_:namespace:policy:expiry:file:function:line:)``.
    ///
    /// ```swift
    /// let cachedLookup = hoard.memoize(findUser, namespace: "user", expiry: .seconds(3_600), nilExpiry: .seconds(60))
    /// let user = try await cachedLookup("ada")   // "no such user" is remembered for a minute
    /// ```
    ///
    /// - Parameters:
    ///   - operation: The function; any number of `Sendable` arguments, an optional ``Cachable`` result.
    ///   - namespace: The key's prefix; `nil` means the `memoize` call's file, line and function.
    ///   - policy: How each call uses the cache (default ``CachePolicy/cacheElseFetch``).
    ///   - expiry: The expiry of a value; `nil` means ``Configuration/defaultExpiry``.
    ///   - nilExpiry: The expiry of a `nil` result; `nil` means `expiry`.
    ///   - file: Filled in by the compiler.
    ///   - function: Filled in by the compiler.
    ///   - line: Filled in by the compiler.
    /// - Returns: The memoized function.
    public func memoize<each Argument: Sendable, Wrapped: Cachable>(
        _ operation: @escaping @Sendable (repeat each Argument) async throws -> Wrapped?,
        namespace: String? = nil, policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil,
        nilExpiry: Expiry? = nil, file: String = #fileID, function: String = #function, line: UInt = #line
    ) -> @Sendable (repeat each Argument) async throws -> Wrapped? {
        memoizedOptional(
            operation, namespace: namespace ?? MemoizationKey.namespace(file: file, function: function, line: line),
            key: { (arguments: repeat each Argument) in MemoizationKey.arguments(repeat each arguments) },
            policy: policy, expiry: expiry, nilExpiry: nilExpiry)
    }

    /// Wraps `operation`, whose result may be `nil`, into a function with the same signature whose
    /// results are cached, `nil` included, keyed by the string `key` makes of the arguments.
    ///
    /// ```swift
    /// let cachedLookup = hoard.memoize(findUser, namespace: "user", nilExpiry: .seconds(60)) { name, _ in name }
    /// ```
    ///
    /// - Parameters:
    ///   - operation: The function; any number of `Sendable` arguments, an optional ``Cachable`` result.
    ///   - namespace: The key's prefix; `nil` means the `memoize` call's file, line and function.
    ///   - key: Makes the arguments part of the key; calls with equal strings share a result.
    ///   - policy: How each call uses the cache (default ``CachePolicy/cacheElseFetch``).
    ///   - expiry: The expiry of a value; `nil` means ``Configuration/defaultExpiry``.
    ///   - nilExpiry: The expiry of a `nil` result; `nil` means `expiry`.
    ///   - file: Filled in by the compiler.
    ///   - function: Filled in by the compiler.
    ///   - line: Filled in by the compiler.
    /// - Returns: The memoized function.
    public func memoize<each Argument: Sendable, Wrapped: Cachable>(
        _ operation: @escaping @Sendable (repeat each Argument) async throws -> Wrapped?,
        namespace: String? = nil, key: @escaping @Sendable (repeat each Argument) -> String,
        policy: CachePolicy = .cacheElseFetch, expiry: Expiry? = nil, nilExpiry: Expiry? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) -> @Sendable (repeat each Argument) async throws -> Wrapped? {
        memoizedOptional(
            operation, namespace: namespace ?? MemoizationKey.namespace(file: file, function: function, line: line),
            key: key, policy: policy, expiry: expiry, nilExpiry: nilExpiry)
    }

    // MARK: - Private

    private func memoized<each Argument: Sendable, Result: Cachable>(
        _ operation: @escaping @Sendable (repeat each Argument) async throws -> Result, namespace: String,
        key: @escaping @Sendable (repeat each Argument) -> String, policy: CachePolicy,
        expiry: @escaping @Sendable (Result) -> Expiry?
    ) -> @Sendable (repeat each Argument) async throws -> Result {
        { [self] (arguments: repeat each Argument) async throws -> Result in
            let cacheKey = MemoizationKey.key(namespace: namespace, arguments: key(repeat each arguments))
            return try await resolve(
                forKey: cacheKey, policy: policy, expiry: expiry, expirationPolicy: nil, reset: false,
                fetch: { try await operation(repeat each arguments) }
            ).value
        }
    }

    private func memoizedOptional<each Argument: Sendable, Wrapped: Cachable>(
        _ operation: @escaping @Sendable (repeat each Argument) async throws -> Wrapped?, namespace: String,
        key: @escaping @Sendable (repeat each Argument) -> String, policy: CachePolicy, expiry: Expiry?,
        nilExpiry: Expiry?
    ) -> @Sendable (repeat each Argument) async throws -> Wrapped? {
        let boxed: @Sendable (repeat each Argument) async throws -> OptionalValue<Wrapped> = {
            (arguments: repeat each Argument) in OptionalValue(try await operation(repeat each arguments))
        }
        let cached = memoized(
            boxed, namespace: namespace, key: key, policy: policy,
            expiry: { $0.wrapped == nil ? nilExpiry ?? expiry : expiry })
        return { (arguments: repeat each Argument) in try await cached(repeat each arguments).wrapped }
    }
}
