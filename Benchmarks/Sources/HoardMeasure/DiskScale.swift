import Foundation
import Hoard

/// A disk cache at scale (issue 51's rows), as `peers/diskcache_scale.py` measures diskcache: COUNT
/// entries of SIZE random bytes under keys "key-%08d" in a new folder, then, in a process of its
/// own (`disk-scale-use`, so that nothing of the filling is warm in it but the page cache), what a
/// new process pays: opening, its first store, then 10,000 stores of new keys, 10,000 retrieves of
/// random stored keys (an hour after the filling: each one's first read marks it used), the
/// statistics (count and bytes), and a trim to half the bytes.
func populateForScale(folder: URL, count: Int, size: Int) throws {
    let values = (0..<64).map { _ in randomBytes(size) }
    let cache = try DiskCache(directory: folder, configuration: .init(sizeLimit: 1 << 40, rescanInterval: 1e6))
    let elapsed = try seconds {
        for index in 0..<count { try cache.store(values[index % values.count], forKey: String(format: "key-%08d", index)) }
    }
    print(String(format: "scale-populate %8d x %6d B: %8.0f ops/s", count, size, Double(count) / elapsed))
}

/// The second half of ``populateForScale(folder:count:size:)``: what a new process pays on the
/// folder it filled. One line, read by `hoardcompare/diskscale.py`.
func measureScaleUse(folder: URL, count: Int, size: Int) throws {
    let values = (0..<64).map { _ in randomBytes(size) }
    // An hour after the filling, as a cache is read in service: every entry's first read marks it
    // used, at 10 k as at 1 M (read straight after a short filling, 10 k entries would mark none).
    let configuration = DiskCache.Configuration(sizeLimit: 1 << 40, rescanInterval: 1e6, now: { Date() + 3600 })
    var cache: DiskCache?
    let open = try seconds { cache = try DiskCache(directory: folder, configuration: configuration) }
    guard let cache else { return }
    let firstStore = try seconds { try cache.store(values[0], forKey: "first-store") }
    let operations = 10_000
    let stores = try seconds {
        for index in 0..<operations { try cache.store(values[index % values.count], forKey: String(format: "new-%08d", index)) }
    }
    var generator = SystemRandomNumberGenerator()
    let picked = (0..<operations).map { _ in String(format: "key-%08d", Int.random(in: 0..<count, using: &generator)) }
    let retrieves = try seconds {
        for key in picked {
            guard let data = try cache.data(forKey: key), data.count == size else { fatalError("DiskCache lost \(key)") }
        }
    }
    var entries = 0
    var bytes = 0
    let stats = try seconds {
        entries = try cache.entryCount
        bytes = try cache.totalSize
    }
    guard entries >= count else { fatalError("DiskCache counts \(entries) entries of \(count)") }
    let half = try DiskCache(
        directory: folder, configuration: .init(sizeLimit: max(1, bytes / 2), lowWaterMarkRatio: 1, rescanInterval: 1e6))
    let trim = try seconds { try half.trim() }
    let kept = try half.entryCount
    print(
        String(
            format:
                "scale %8d x %6d B: open %8.2f ms  first-store %8.2f ms  store %8.0f ops/s  retrieve %8.0f ops/s  stats %8.2f ms  trim-half %8.2f s  kept %d",
            count, size, open * 1000, firstStore * 1000, Double(operations) / stores, Double(operations) / retrieves,
            stats * 1000, trim, kept))
}
