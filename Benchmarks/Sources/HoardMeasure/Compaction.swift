import Foundation
import Hoard
import Synchronization

/// How long a trim that removes three quarters of a full cache takes, and how long a reader and a
/// writer in other threads wait meanwhile: 20,000 entries of 4 KiB (in segment files), then a
/// second cache on the folder with a limit of a quarter of that trims it (deleting rows, removing
/// segments no row names, giving pages back a step at a time) while one thread reads random keys
/// and one stores. Then the second cache stores 5,000 entries (in 5 MiB segments), removes every
/// other one, and trims again: the records left in those segments are moved.
func measureCompaction(folder: URL) throws {
    let count = 20_000
    let size = 4096
    let values = (0..<64).map { _ in randomBytes(size) }
    let keys = (0..<count).map { String(format: "key-%08d", $0) }
    let filler = try DiskCache(directory: folder, configuration: .init(sizeLimit: 1 << 40))
    for (index, key) in keys.enumerated() { try filler.store(values[index % values.count], forKey: key) }
    let recordBytes = try filler.totalSize
    let trimmer = try DiskCache(
        directory: folder, configuration: .init(sizeLimit: recordBytes / 4, lowWaterMarkRatio: 1))
    let stop = Atomic<Bool>(false)
    let slowest = Mutex<(read: Duration, write: Duration, reads: Int, writes: Int)>((.zero, .zero, 0, 0))
    let reader = Thread {
        while !stop.load(ordering: .relaxed) {
            let started = ContinuousClock.now
            _ = try? filler.data(forKey: keys[Int.random(in: 0..<count)])
            let took = ContinuousClock.now - started
            slowest.withLock { $0.read = max($0.read, took); $0.reads += 1 }
        }
    }
    let writer = Thread {
        var index = 0
        while !stop.load(ordering: .relaxed) {
            let started = ContinuousClock.now
            try? filler.store(values[index % values.count], forKey: "new-\(index)")
            let took = ContinuousClock.now - started
            slowest.withLock { $0.write = max($0.write, took); $0.writes += 1 }
            index += 1
            usleep(1000)
        }
    }
    reader.start()
    writer.start()
    usleep(200_000)
    /// Runs `work` and prints how long it took, the files' bytes before and after, and the longest
    /// read and write the other threads saw meanwhile.
    func timed(_ label: String, _ work: () throws -> Void) throws {
        slowest.withLock { $0 = (.zero, .zero, 0, 0) }
        let before = try fileBytes(folder)
        let started = ContinuousClock.now
        try work()
        let took = ContinuousClock.now - started
        usleep(200_000)
        let after = try fileBytes(folder)
        let figures = slowest.withLock { $0 }
        print(
            String(
                format: "compaction: %d x %d B, %@: %.1f ms; index and segment files %.1f MB -> %.1f MB; "
                    + "longest read %.2f ms (%d reads), longest write %.2f ms (%d writes)",
                count, size, label, milliseconds(took), Double(before) / 1e6, Double(after) / 1e6,
                milliseconds(figures.read), figures.reads, milliseconds(figures.write), figures.writes))
    }
    try timed("trim to a quarter") { try trimmer.trim() }
    // Records moved: the trimmer's own stores (its limit makes 5 MiB segments), every other one
    // removed, leaves half-live segments that the next trim copies out of.
    let moved = (0..<count / 4).map { String(format: "moved-%08d", $0) }
    for (index, key) in moved.enumerated() { try trimmer.store(values[index % values.count], forKey: key) }
    for key in moved.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) { try trimmer.remove(forKey: key) }
    try timed("half-live segments moved") { try trimmer.trim() }
    stop.store(true, ordering: .relaxed)
    usleep(50_000)
}

private func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// The bytes of the index database, its write-ahead log and the segment files.
private func fileBytes(_ folder: URL) throws -> Int {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
        $0.hasPrefix("index.sqlite") || $0.hasPrefix("segment-")
    }.reduce(0) {
        $0 + ((try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent($1).path)[.size] as? Int) ?? 0)
    }
}
