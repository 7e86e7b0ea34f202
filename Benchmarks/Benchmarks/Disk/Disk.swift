import Benchmark
import Foundation
import Hoard
import HoardBenchmarkSupport
import Logging

// DiskCache: store and retrieve of 1 KiB, 64 KiB and 1 MiB values, a miss, and trims of 10,000
// entries. One iteration is one operation. Each benchmark works in a fresh folder under
// $HOARD_BENCH_DISK_DIR or the working directory (see ScratchFolder); all are removed at the end.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        maxDuration: .seconds(1))
    Benchmark.teardown = { ScratchFolder.removeAll() }

    for size in ValueSize.allCases {
        // Every store creates a new entry file: the cache never trims.
        Benchmark("store \(size)", configuration: .init(maxIterations: size.storeCount)) { benchmark, fixture in
            try fixture.cache.store(fixture.value, forKey: "key-\(benchmark.currentIteration)")
        } setup: {
            try DiskFixture(size: size, entryCount: 0)
        }

        Benchmark("retrieve \(size)", configuration: .init(maxIterations: 10_000)) { benchmark, fixture in
            let key = "key-\(benchmark.currentIteration % fixture.entryCount)"
            guard let data = try fixture.cache.data(forKey: key), data.count == size.byteCount else {
                throw DiskFixture.Failure.missing(key: key)
            }
            blackHole(data)
        } setup: {
            try DiskFixture(size: size, entryCount: size.retrieveEntryCount)
        }
    }

    Benchmark("miss", configuration: .init(maxIterations: 100_000)) { benchmark, fixture in
        blackHole(try fixture.cache.data(forKey: "absent-\(benchmark.currentIteration)"))
    } setup: {
        try DiskFixture(size: .kibibyte, entryCount: 1_000)
    }

    // A second cache on the folder, whose limit is 1.25 times what the 10,000 entries take: the
    // trim scans them all and removes none, so it repeats as is.
    Benchmark("trim 10,000 entries, none removed", configuration: .init(maxIterations: 50)) { _, fixture in
        try fixture.trimmer.trim()
    } setup: {
        try TrimFixture(entryCount: 10_000, limitRatio: 1.25)
    }

    // The same with a limit of half the entries: the trim removes 60% of them (down to the
    // low-water mark, 80% of the limit). The folder is refilled after each trim, unmeasured
    // (startMeasurement/stopMeasurement around the trim only).
    Benchmark(
        "trim 10,000 entries, 6,000 removed",
        configuration: .init(warmupIterations: 0, maxDuration: .seconds(2), maxIterations: 5)
    ) { benchmark, fixture in
        benchmark.startMeasurement()
        try fixture.trimmer.trim()
        benchmark.stopMeasurement()
        try fixture.fill()
    } setup: {
        try TrimFixture(entryCount: 10_000, limitRatio: 0.5)
    }
}

/// The value sizes of the store and retrieve benchmarks.
enum ValueSize: CaseIterable, CustomStringConvertible {
    case kibibyte, sixtyFourKibibytes, mebibyte

    var byteCount: Int {
        switch self {
        case .kibibyte: 1 << 10
        case .sixtyFourKibibytes: 64 << 10
        case .mebibyte: 1 << 20
        }
    }

    /// The most stores one benchmark makes, as the peers' diskcache benchmark: 10 MiB, 125 MiB, 200 MiB.
    var storeCount: Int {
        switch self {
        case .kibibyte: 10_000
        case .sixtyFourKibibytes: 2_000
        case .mebibyte: 200
        }
    }

    /// How many entries the retrieve benchmark cycles through.
    var retrieveEntryCount: Int {
        switch self {
        case .kibibyte: 1_000
        case .sixtyFourKibibytes: 500
        case .mebibyte: 100
        }
    }

    var description: String {
        switch self {
        case .kibibyte: "1 KiB"
        case .sixtyFourKibibytes: "64 KiB"
        case .mebibyte: "1 MiB"
        }
    }
}

/// A cache in a fresh folder that never trims, holding `entryCount` entries `key-0`, `key-1`, ...
struct DiskFixture {
    enum Failure: Error {
        case missing(key: String)
    }

    let cache: DiskCache
    let value: Data
    let entryCount: Int

    init(size: ValueSize, entryCount: Int) throws {
        var generator = SeededGenerator(seed: UInt64(size.byteCount))
        value = generator.bytes(size.byteCount)
        self.entryCount = entryCount
        cache = try DiskCache(directory: try ScratchFolder.make("disk"), configuration: .quiet(sizeLimit: 1 << 40))
        for index in 0..<entryCount {
            try cache.store(value, forKey: "key-\(index)")
        }
    }
}

/// A folder of 1 KiB entries, a writer that never trims, and a trimmer with a smaller limit.
struct TrimFixture {
    let writer: DiskCache
    let trimmer: DiskCache
    let entryCount: Int
    let value: Data

    init(entryCount: Int, limitRatio: Double) throws {
        var generator = SeededGenerator(seed: 3)
        value = generator.bytes(1 << 10)
        self.entryCount = entryCount
        let folder = try ScratchFolder.make("trim")
        writer = try DiskCache(directory: folder, configuration: .quiet(sizeLimit: 1 << 40))
        for index in 0..<entryCount {
            try writer.store(value, forKey: "key-\(index)")
        }
        let limit = Int(Double(try writer.totalSize) * limitRatio)
        trimmer = try DiskCache(directory: folder, configuration: .quiet(sizeLimit: limit))
    }

    /// Stores every entry again, bringing back those a trim removed.
    func fill() throws {
        for index in 0..<entryCount {
            try writer.store(value, forKey: "key-\(index)")
        }
    }
}

extension DiskCache.Configuration {
    /// A configuration that logs only errors, so that trims do not print.
    static func quiet(sizeLimit: Int) -> Self {
        var logger = Logger(label: "HoardBenchmarks.Disk")
        logger.logLevel = .error
        return .init(sizeLimit: sizeLimit, logger: logger)
    }
}
