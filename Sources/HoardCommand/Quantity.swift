/// A count with its noun in the right number: `1 input`, `2 inputs`, `1 entry`.
enum Quantity {
    /// `count` and `singular`, or `plural` (by default `singular` and an s) for any count but 1.
    static func of(_ count: Int, _ singular: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
    }

    /// `count` entries.
    static func entries(_ count: Int) -> String { of(count, "entry", plural: "entries") }
}
