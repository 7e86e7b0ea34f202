import Foundation
import Hoard

/// What the manager adds to a disk hit, measured so that the machine's noise falls on both sides
/// alike: `count` values of `size` bytes stored through `Hoard` (memory tier of one entry), then
/// read `rounds` times in chunks of 1,000 keys, each chunk once through `Hoard.retrieve(Data.self)`
/// and once through a `DiskCache` opened on the same folder, the two alternating (and taking turns
/// to go first), and a third time through the same `DiskCache` with each value then put in a
/// `MemoryCache` of one entry: the work a disk hit through the manager cannot avoid. Prints the
/// three rates (the medians of the chunks) and what the manager adds to `DiskCache` alone per read.
func measureHoardDiskOverhead(base: URL, size: Int, count: Int, rounds: Int) async throws {
    let folder = base.appendingPathComponent("hoard-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var configuration = Hoard.Configuration(name: "measure", directory: folder)
    configuration.memoryCountLimit = 1
    configuration.diskSizeLimit = 1 << 40
    let hoard = try Hoard(configuration: configuration)
    let values = (0..<64).map { _ in randomBytes(size) }
    let keys = (0..<count).map { String(format: "key-%08d", $0) }
    for (index, key) in keys.enumerated() { try await hoard.store(values[index % values.count], forKey: key) }
    let disk = try DiskCache(directory: hoard.directory, configuration: .init(sizeLimit: 1 << 40))
    // The floor: the disk read and a promotion into a memory tier of one entry, nothing else.
    let memory = try MemoryCache<String, Data>(configuration: .init(countLimit: 1))
    var throughHoard: [Double] = []
    var throughDisk: [Double] = []
    var throughFloor: [Double] = []

    for _ in 0..<rounds {
        for chunk in stride(from: 0, to: count, by: 1000) {
            let slice = keys[chunk..<min(chunk + 1000, count)]
            // The side that reads a chunk second finds the bytes it reads in the processor's caches:
            // each side goes first on every other chunk.
            let hoardFirst = chunk / 1000 % 2 == 0
            if !hoardFirst { throughDisk.append(try readThroughDisk(slice)) }
            var start = DispatchTime.now().uptimeNanoseconds
            for key in slice {
                guard try await hoard.retrieve(Data.self, forKey: key)?.count == size else { fatalError("Hoard lost \(key)") }
            }
            throughHoard.append(Double(slice.count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
            if hoardFirst { throughDisk.append(try readThroughDisk(slice)) }
            start = DispatchTime.now().uptimeNanoseconds
            for key in slice {
                guard let data = try disk.data(forKey: key), data.count > size else { fatalError("DiskCache lost \(key)") }
                try memory.setValue(data, forKey: key, cost: data.count)
            }
            throughFloor.append(Double(slice.count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        }
    }
    func readThroughDisk(_ slice: ArraySlice<String>) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        for key in slice {
            guard let data = try disk.data(forKey: key), data.count > size else { fatalError("DiskCache lost \(key)") }
        }
        return Double(slice.count) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    let (hoardRate, diskRate, floorRate) = (median(throughHoard), median(throughDisk), median(throughFloor))
    print(
        String(
            format: "overhead %7d B x %5d: Hoard %8.0f ops/s  DiskCache %8.0f ops/s  DiskCache + promotion %8.0f ops/s  "
                + "manager adds %.2f us per hit",
            size, count, hoardRate, diskRate, floorRate, (1 / hoardRate - 1 / diskRate) * 1e6))
}
