/// The bytes records take on disk outside the index, as every process sharing the folder sees
/// them (see ``UsageTable``): entry files and segment files, dead records included. The index
/// database is measured by its file's size (see ``TrimState/counted(_:)``).
struct DiskUsage: Sendable, Hashable {
    /// Entry files and segment files, in bytes.
    var bytes: Int
}
