/// What the cache's files hold and take, as the index's running totals give them to every
/// process sharing the folder (see ``UsageTable``), read in one statement.
///
/// The index database counts by its pages (SQLite's own count, in the reader's snapshot), not by
/// its file's size, which follows only at a checkpoint; its log is part of the slack.
struct DiskUsage: Sendable, Hashable {
    /// The bytes of entry files.
    var fileBytes = 0
    /// The committed bytes of segment files, removed and replaced records included.
    var segmentFileBytes = 0
    /// The bytes of the live records in segment files.
    var liveSegmentBytes = 0
    /// The bytes of the records inside the index.
    var inlineBytes = 0
    /// The rows, expired ones included.
    var entryCount = 0
    /// The index database's pages, free ones included.
    var indexPageCount = 0
    /// The index database's free pages (left by removed rows until a vacuum gives them back).
    var freeIndexPageCount = 0

    /// The bytes of the database's pages that are part of the slack rather than counted against
    /// the limit: its schema and the first pages of its tables, whatever they hold.
    static let indexAllowance = 64 * 1024

    /// What counts against the limit: entry files, segment files, and the index's pages past
    /// ``indexAllowance``, or the records inside it when they are more (a small index, whose
    /// allowance would hide them).
    var counted: Int {
        Self.sum(fileBytes, segmentFileBytes, max(inlineBytes, Self.indexBytes(pages: indexPageCount)))
    }

    /// What ``counted`` comes down to once dead space is given back (segments compacted, free
    /// pages vacuumed): what a trim by recency removes entries until it reaches its mark.
    var live: Int {
        Self.sum(fileBytes, liveSegmentBytes, max(inlineBytes, Self.indexBytes(pages: indexPageCount - freeIndexPageCount)))
    }

    /// The bytes of the entries' records (headers and keys included), wherever they are.
    var recordBytes: Int {
        Self.sum(fileBytes, liveSegmentBytes, inlineBytes)
    }

    /// The bytes in segment files that no record uses.
    var deadSegmentBytes: Int { max(0, segmentFileBytes - liveSegmentBytes) }

    /// The index's bytes in `pages` pages past the allowance.
    private static func indexBytes(pages: Int) -> Int {
        max(0, max(pages, 0) * DiskIndex.pageByteCount - indexAllowance)
    }

    /// The sum of three counts each held to 0 through 2⁴⁸ (a damaged total cannot overflow it);
    /// not variadic, since a store computes it and an array would be allocated each time.
    private static func sum(_ first: Int, _ second: Int, _ third: Int) -> Int {
        held(first) + held(second) + held(third)
    }

    private static func held(_ count: Int) -> Int { min(max(count, 0), SQLiteStatement.maximumByteCount) }
}
