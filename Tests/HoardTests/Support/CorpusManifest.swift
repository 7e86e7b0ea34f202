import Foundation
import Testing

/// One row of `../shared/corpus/MANIFEST.tsv`.
struct CorpusEntry: Sendable, CustomTestStringConvertible {
    let path: String
    let format: String
    let size: String
    let expectation: String
    let note: String

    var testDescription: String { path }
}

enum CorpusManifest {
    /// Every image row of the manifest (text and licence rows left out); empty without the corpus.
    static let entries: [CorpusEntry] = {
        guard let corpus = TestFiles.corpus,
            let text = try? String(contentsOf: corpus.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 8, columns[4] != "text" else { return nil }
            return CorpusEntry(
                path: columns[0], format: columns[4], size: columns[5], expectation: columns[6], note: columns[7])
        }
    }()

    static func entries(_ expectations: String...) -> [CorpusEntry] {
        entries.filter { expectations.contains($0.expectation) }
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips a test, with a message, when the shared corpus is absent.
    static var needsCorpus: Self { .enabled(if: TestFiles.corpus != nil, Comment(rawValue: TestFiles.corpusMissing)) }
}
