import Foundation
import Hoard

/// `Hoard.store` and `Hoard.retrieve(Data.self, forKey:)` answered by the disk tier: the manager
/// over a memory tier of one entry, so that every retrieve of 10,000 keys in a row goes to disk, as
/// a user's reads do once the memory tier has moved on. The same sizes and counts as the first two
/// rows of `disk`, one task; prints the medians of `repetitions` rounds, each in a new folder.
///
/// With `retrieveRounds` above 1 (`--retrieve-rounds N`, for `perf record`), each retrieve pass
/// runs that many times over the same keys, so that retrieves dominate the profile; `size`
/// (`--size 1024` or `--size 16384`) keeps one of the two rows.
func measureHoardDisk(
    base: URL, repetitions: Int, settles: Bool, retrieveRounds: Int = 1, size onlySize: Int? = nil
) async throws {
    let cases = [(1024, 10_000), (16 * 1024, 10_000)].filter { onlySize == nil || $0.0 == onlySize }
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    for (size, count) in cases {
        let values = (0..<64).map { _ in randomBytes(size) }
        let keys = (0..<count).map { String(format: "key-%08d", $0) }
        var stores: [Double] = []
        var retrieves: [Double] = []
        for _ in 0..<repetitions {
            if settles { settleFileSystem() }
            let folder = base.appendingPathComponent("hoard-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            var configuration = Hoard.Configuration(name: "measure", directory: folder)
            configuration.memoryCountLimit = 1
            configuration.diskSizeLimit = 1 << 40
            let hoard = try Hoard(configuration: configuration)
            var start = DispatchTime.now().uptimeNanoseconds
            for (index, key) in keys.enumerated() { try await hoard.store(values[index % values.count], forKey: key) }
            stores.append(Double(count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
            start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<retrieveRounds {
                for key in keys {
                    guard let data = try await hoard.retrieve(Data.self, forKey: key), data.count == size else {
                        fatalError("Hoard lost \(key) (\(size) B values)")
                    }
                }
            }
            retrieves.append(Double(count * retrieveRounds) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        }
        print(
            String(
                format: "Hoard(disk) %7d B x %5d: store %8.0f ops/s  retrieve %8.0f ops/s", size, count,
                median(stores), median(retrieves)))
    }
}
