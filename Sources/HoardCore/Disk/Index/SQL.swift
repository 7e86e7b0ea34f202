import Synchronization

/// The text of a statement that each ``SQLiteConnection`` prepares once and keeps, declared once,
/// as a `static let` beside the code that runs it.
///
/// Invariant: every declaration has a slot of its own, its index among a connection's prepared
/// statements, so that a connection finds one without hashing its text (a dictionary keyed by
/// the text cost a small store or read a measurable share of its instructions; see the DocC article
/// "Measurements behind the design", "Instructions per store and read"). Slots are never reused:
/// SQL made anew for each call would take a new slot each time, so such SQL goes through
/// ``SQLiteConnection/uncachedStatement(_:)`` instead.
final class SQL: Sendable {
    /// The statement's text.
    let text: String
    /// Its index among a connection's prepared statements.
    let slot: Int

    private static let slotsTaken = Atomic<Int>(0)

    init(_ text: String) {
        self.text = text
        slot = Self.slotsTaken.add(1, ordering: .relaxed).oldValue
    }
}
