import Foundation
import Testing

@testable import Hoard

@Suite("Corpus summary")
struct CorpusSummaryTests {
    @Test("decoded / rejected / total per expectation, printed for the record", .needsCorpus)
    func summary() throws {
        var counts: [String: (decoded: Int, rejected: Int, total: Int)] = [:]
        for entry in CorpusManifest.entries {
            let data = try TestFiles.corpusFile(entry.path)
            var row = counts[entry.expectation] ?? (0, 0, 0)
            row.total += 1
            if (try? Image(data: data)) != nil { row.decoded += 1 } else { row.rejected += 1 }
            counts[entry.expectation] = row
        }
        for (expectation, row) in counts.sorted(by: { $0.key < $1.key }) {
            print("corpus \(expectation): \(row.decoded) decoded / \(row.rejected) rejected / \(row.total) total")
        }
        let all = counts.values.reduce((0, 0, 0)) { ($0.0 + $1.decoded, $0.1 + $1.rejected, $0.2 + $1.total) }
        print("corpus all: \(all.0) decoded / \(all.1) rejected / \(all.2) total")
        #expect(counts["valid"].map { $0.decoded == $0.total } ?? false)
        #expect(counts["reject"].map { $0.rejected == $0.total } ?? false)
    }
}
