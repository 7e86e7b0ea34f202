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
    /// The manifest's format names that `Image(data:)` decodes.
    static let decodedFormats: Set<String> = ["PNG", "JPEG", "WebP", "GIF", "AVIF"]

    /// The manifest's image formats that `Image(data:)` does not decode: HEIC and HEIF carry HEVC,
    /// for which Hoard has no decoder.
    static let undecodedFormats: Set<String> = ["HEIC", "HEIF"]

    /// Every image row of the manifest (text and licence rows left out); empty without the corpus.
    static let allEntries: [CorpusEntry] = {
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

    /// The rows the decoder is held to: every row, except that files which must decode
    /// (`valid…`) count only in the formats Hoard decodes. The other formats' files are in
    /// ``undecodedEntries``.
    static let entries: [CorpusEntry] = allEntries.filter { isDecodable($0) || !$0.expectation.hasPrefix("valid") }

    /// Every file in a format Hoard does not decode (HEIC, HEIF), whatever its expectation: each
    /// must be refused with a typed error, never decoded into wrong pixels or a crash.
    static let undecodedEntries: [CorpusEntry] = allEntries.filter { undecodedFormats.contains($0.format) }

    /// The rows of `format` with one of `expectations`.
    static func entries(format: String, _ expectations: String...) -> [CorpusEntry] {
        entries.filter { $0.format == format && expectations.contains($0.expectation) }
    }

    static func entries(_ expectations: String...) -> [CorpusEntry] {
        entries.filter { expectations.contains($0.expectation) }
    }

    private static func isDecodable(_ entry: CorpusEntry) -> Bool {
        decodedFormats.contains(entry.format)
    }
}

extension Trait where Self == ConditionTrait {
    /// Skips a test, with a message, when the shared corpus is absent.
    static var needsCorpus: Self { .enabled(if: TestFiles.corpus != nil, Comment(rawValue: TestFiles.corpusMissing)) }
}
