/// A tier that could not be opened (``Hoard/shared``'s disk folder could not be created): every
/// operation throws the reason, so the memory tier still works and the disk's absence is said.
struct UnavailableTier: CacheTier {
    let identifier: CacheTierIdentifier
    let error: HoardError

    func entry(forKey key: String) async throws -> CacheTierEntry? { throw error }
    func store(_ entry: CacheTierEntry, forKey key: String) async throws { throw error }
    func remove(forKey key: String) async throws { throw error }
    func removeAll() async throws { throw error }
    func removeEntries(
        where shouldRemove: @escaping @Sendable (String, ArraySlice<UInt8>) -> Bool
    ) async throws -> [String] { throw error }
}
