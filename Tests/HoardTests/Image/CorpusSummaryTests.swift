import Foundation
import Testing

@testable import HoardCore
@testable import HoardImage

@Suite("Corpus summary")
struct CorpusSummaryTests {
    @Test("decoded / rejected / total per format and expectation, printed for the record", .needsCorpus)
    func summary() throws {
        var counts: [String: (decoded: Int, rejected: Int, total: Int)] = [:]
        for entry in CorpusManifest.entries + CorpusManifest.undecodedEntries {
            let data = try TestFiles.corpusFile(entry.path)
            let decoded = (try? Image(data: data)) != nil
            for key in ["all \(entry.expectation)", "\(entry.format) \(entry.expectation)"] {
                var row = counts[key] ?? (0, 0, 0)
                row.total += 1
                if decoded { row.decoded += 1 } else { row.rejected += 1 }
                counts[key] = row
            }
        }
        for (key, row) in counts.sorted(by: { $0.key < $1.key }) {
            print("corpus \(key): \(row.decoded) decoded / \(row.rejected) rejected / \(row.total) total")
        }
        let all = counts.filter { $0.key.hasPrefix("all ") }.values
            .reduce((0, 0, 0)) { ($0.0 + $1.decoded, $0.1 + $1.rejected, $0.2 + $1.total) }
        print("corpus all: \(all.0) decoded / \(all.1) rejected / \(all.2) total")
        #expect(counts["all valid"].map { $0.decoded == $0.total } ?? false)
        #expect(counts["all reject"].map { $0.rejected == $0.total } ?? false)
        for format in CorpusManifest.undecodedFormats {
            #expect(counts.filter { $0.key.hasPrefix("\(format) ") }.values.allSatisfy { $0.decoded == 0 })
        }
    }
}
