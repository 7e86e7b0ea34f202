import Foundation
import Hoard

/// DiskCache store and retrieve of 1 KiB x 10000, 16 KiB x 10000 (a thumbnail's size), 64 KiB x 2000
/// and 1 MiB x 200 values, as
/// `peers/diskcache_bench.py`: keys "key-%08d", 64 random values cycled, a fresh cache folder under
/// `base` per repetition, one thread. With `settles`, each repetition starts with `sync()` and a
/// one-second sleep, as `diskcache_bench.py` does unless given `--no-sync`.
func measureDisk(base: URL, repetitions: Int, settles: Bool) throws {
    let cases = [(1024, 10_000), (16 * 1024, 10_000), (64 * 1024, 2_000), (1024 * 1024, 200)]
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    for (size, count) in cases {
        let values = (0..<min(count, 64)).map { _ in randomBytes(size) }
        let keys = (0..<count).map { String(format: "key-%08d", $0) }
        var stores: [Double] = []
        var retrieves: [Double] = []
        for _ in 0..<repetitions {
            if settles { settleFileSystem() }
            let folder = base.appendingPathComponent("hoard-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = try DiskCache(directory: folder, configuration: .init(sizeLimit: 1 << 40))
            stores.append(
                Double(count)
                    / (try seconds {
                        for (index, key) in keys.enumerated() {
                            try cache.store(values[index % values.count], forKey: key)
                        }
                    }))
            retrieves.append(
                Double(count)
                    / (try seconds {
                        for key in keys {
                            guard let data = try cache.data(forKey: key), data.count == size else {
                                fatalError("DiskCache lost \(key) (\(size) B values)")
                            }
                        }
                    }))
        }
        print(
            String(
                format: "DiskCache %7d B x %5d: store %8.0f ops/s  retrieve %8.0f ops/s", size, count,
                median(stores), median(retrieves)))
    }
}

/// Fills a new cache folder `folder` with `count` entries of `size` random bytes under keys
/// "key-%08d". With `earlierFormat`, leaves it as format 1 wrote it: a file per entry, no index,
/// the format-1 marker (the entry files are byte for byte what format 1 wrote).
func populateDisk(folder: URL, count: Int, size: Int, earlierFormat: Bool) throws {
    let values = (0..<64).map { _ in randomBytes(size) }
    let configuration = DiskCache.Configuration(
        sizeLimit: 1 << 40, inlineEntryLimit: earlierFormat ? 0 : DiskCache.Configuration.defaultInlineEntryLimit)
    do {
        let cache = try DiskCache(directory: folder, configuration: configuration)
        for index in 0..<count {
            try cache.store(values[index % values.count], forKey: String(format: "key-%08d", index))
        }
    }
    guard earlierFormat else { return }
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasPrefix("index.sqlite") {
        try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
    }
    try Data("Hoard cache\nformat 1\n".utf8).write(to: folder.appendingPathComponent(DiskCache.markerFileName))
}

/// One disk operation in a loop for `seconds`, one thread, to profile it with `perf record`
/// without the other work of `disk` around it: `retrieve` reads `count` values of `size` bytes
/// ("key-%08d", stored first into a new folder under `base`) in key order, round after round;
/// `store` stores `size`-byte values under new keys, `count` per round, into one new folder.
/// Prints ops/s.
/// What `disk-loop` repeats.
enum DiskLoopOperation: String {
    /// Stores new keys.
    case store
    /// Reads stored keys.
    case retrieve
    /// Reads a stored key, then stores a new value for it: reads and writes alternate.
    case mixed
}

func measureDiskLoop(base: URL, size: Int, count: Int, seconds: Double, operation: DiskLoopOperation) throws {
    let folder = base.appendingPathComponent("hoard-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let storing = operation == .store
    if !storing { try populateDisk(folder: folder, count: count, size: size, earlierFormat: false) }
    let cache = try DiskCache(directory: folder, configuration: .init(sizeLimit: 1 << 40))
    let values = (0..<64).map { _ in randomBytes(size) }
    // Keys are made before the clock starts: formatting one costs about a microsecond, a tenth of a read.
    let keys = (0..<(storing ? 0 : count)).map { String(format: "key-%08d", $0) }
    var operations = 0
    let clock = ContinuousClock()
    let start = clock.now
    while clock.now - start < .seconds(seconds) {
        for index in 0..<count {
            let key = storing ? String(format: "key-%08d", operations + index) : keys[index]
            if operation != .store, try cache.data(forKey: key)?.count != size {
                fatalError("DiskCache lost \(key) (\(size) B values)")
            }
            if operation != .retrieve {
                try cache.store(values[(operations + index) % values.count], forKey: key)
            }
        }
        operations += count
    }
    let elapsed = clock.now - start
    let rate =
        Double(operations) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
    let unit = operation == .mixed ? "pairs/s" : "ops/s"
    print(String(format: "DiskCache %7d B x %5d: %@ %8.0f %@", size, count, operation.rawValue, rate, unit))
}
