/// How many directory entries the folder walks of one run may read between them
/// (`--max-folder-entries`).
///
/// One budget is shared by every folder input of a run, so a list that names `/` fifty thousand
/// times costs one budget, not fifty thousand walks: a walk that would read more fails, and so do
/// the folder inputs after it.
///
/// ```swift
/// var budget = FolderEntryBudget(limit: 2)
/// budget.spend()  // true
/// budget.spend()  // true
/// budget.spend()  // false: exhausted
/// ```
struct FolderEntryBudget: Sendable {
    /// The most entries all walks together may read.
    let limit: Int
    /// The entries read so far (at most `limit + 1`).
    private(set) var spent = 0

    init(limit: Int) {
        self.limit = limit
    }

    /// Whether a walk has already tried to read more than ``limit`` entries.
    var isExhausted: Bool { spent > limit }

    /// Counts one entry read; `false` once that is more than ``limit``.
    mutating func spend() -> Bool {
        guard !isExhausted else { return false }
        spent += 1
        return !isExhausted
    }
}
