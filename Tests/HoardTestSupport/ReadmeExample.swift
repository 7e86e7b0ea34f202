import Foundation

/// The code examples of the README and the DocC articles, for the tests that run them: each
/// example sits between `<name>: begin` and `<name>: end` markers in the document that shows it and
/// in the test that runs it.
public enum ReadmeExample {
    /// The repository's root folder.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The lines of the example `name` as `document` (a path relative to the repository's root:
    /// the README, or a DocC article) shows it and as `source` (a test file) runs it, trimmed,
    /// without blank lines, code fences and imports: equal when the document is honest.
    ///
    /// - Throws: When `document` or `source` cannot be read.
    public static func lines(named name: String, source: String, document: String = "README.md") throws
        -> (shown: [String], run: [String])
    {
        let shownText = try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: source), encoding: .utf8)
        func lines(_ text: String, between begin: String, and end: String) -> [String] {
            let all = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let start = all.firstIndex(where: { $0.contains(begin) }),
                let stop = all[start...].firstIndex(where: { $0.contains(end) })
            else { return [] }
            return all[(start + 1)..<stop].filter { !$0.isEmpty && !$0.hasPrefix("```") && !$0.hasPrefix("import ") }
        }
        return (
            lines(shownText, between: "\(name): begin", and: "\(name): end"),
            lines(source, between: "// \(name): begin", and: "// \(name): end")
        )
    }
}
