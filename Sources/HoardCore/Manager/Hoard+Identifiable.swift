extension Hoard {
    /// The key an `Identifiable` value is stored under: its type's ``Cachable/cacheTypeIdentifier``
    /// and its id, so two types with the same id never share a key.
    ///
    /// - Parameters:
    ///   - type: The value's type.
    ///   - id: The value's id; its `description` form is used.
    /// - Returns: For example `"identifiable:MyApp.User:42"`.
    public static func key<T: Cachable & Identifiable>(for type: T.Type, id: T.ID) -> String {
        "identifiable:\(typeName(of: type)):\(String(describing: id))"
    }

    /// Stores an `Identifiable` value under ``key(for:id:)``.
    ///
    /// ```swift
    /// try await hoard.store(user)                          // user.id == 42
    /// let again = try await hoard.retrieve(User.self, id: 42)
    /// ```
    ///
    /// - Parameters:
    ///   - object: The value.
    ///   - expiry: When it expires; `nil` means the configuration's default.
    /// - Throws: As ``store(_:forKey:expiry:)-(_,String,_)``.
    public func store<T: Cachable & Identifiable>(_ object: T, expiry: Expiry? = nil) async throws {
        try await store(object, forKey: Self.key(for: T.self, id: object.id), expiry: expiry)
    }

    /// Reads the `Identifiable` value of type `type` with id `id`.
    ///
    /// - Returns: The value, or `nil` when there is none or it has expired.
    /// - Throws: As ``retrieve(_:forKey:)-(_,String)``.
    public func retrieve<T: Cachable & Identifiable>(_ type: T.Type, id: T.ID) async throws -> T? {
        try await retrieve(type, forKey: Self.key(for: type, id: id))
    }

    /// Removes the `Identifiable` value of type `type` with id `id` from both tiers.
    ///
    /// - Throws: As ``remove(forKey:)``.
    public func remove<T: Cachable & Identifiable>(_ type: T.Type, id: T.ID) async throws {
        try await remove(forKey: Self.key(for: type, id: id))
    }
}
