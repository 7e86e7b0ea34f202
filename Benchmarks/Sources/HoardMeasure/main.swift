import Foundation
import Hoard

// Usage:
//   HoardMeasure codec PHOTO.jpg [PHOTO.png]   JPEG decode (1/1..1/8) and encode q90, PNG decode/encode: fps, MP/s
//   HoardMeasure memory [reps]                 MemoryCache set/get, 100k String keys, 16-byte values (as memcache_bench.swift)
//   HoardMeasure disk DIR [reps]               DiskCache store/retrieve of 1 KiB x 10000, 64 KiB x 2000, 1 MiB x 200
//                                              (as bench_diskcache.py), a fresh cache folder under DIR per rep
// Single thread throughout.

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "codec" where arguments.count >= 2:
    try measureCodecs(jpegPath: arguments[1], pngPath: arguments.count > 2 ? arguments[2] : nil)
case "memory":
    measureMemory(repetitions: arguments.count > 1 ? Int(arguments[1]) ?? 5 : 5)
case "disk" where arguments.count >= 2:
    try measureDisk(base: URL(fileURLWithPath: arguments[1]), repetitions: arguments.count > 2 ? Int(arguments[2]) ?? 5 : 5)
default:
    FileHandle.standardError.write(Data("usage: HoardMeasure codec JPG [PNG] | memory [reps] | disk DIR [reps]\n".utf8))
    exit(64)
}

func measureCodecs(jpegPath: String, pngPath: String?) throws {
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: jpegPath))
    var options = Image.DecodingOptions()
    options.appliesOrientation = false
    let full = try Image(data: jpeg, options: options)
    let megapixels = Double(full.width * full.height) / 1e6
    func report(_ label: String, _ rate: Double) {
        print(String(format: "%-22@ %7.1f fps %7.1f MP/s (source MP)", label, rate, rate * megapixels))
    }
    report("jpeg decode 1/1", try callsPerSecond(seconds: 3) { _ = try Image(data: jpeg, options: options) })
    let longest = max(full.width, full.height)
    for denominator in [2, 4, 8] {
        var scaled = options
        scaled.targetSize = (longest + denominator - 1) / denominator
        report("jpeg decode 1/\(denominator)", try callsPerSecond(seconds: 3) { _ = try Image(data: jpeg, options: scaled) })
    }
    report("jpeg encode q90", try callsPerSecond(seconds: 3) { _ = try full.jpegData(quality: 90) })
    if let pngPath {
        let png = try Data(contentsOf: URL(fileURLWithPath: pngPath))
        let image = try Image(data: png)
        report("png decode", try callsPerSecond(seconds: 3) { _ = try Image(data: png) })
        report("png encode", try callsPerSecond(seconds: 3) { _ = try image.pngData() })
    }
}

func measureMemory(repetitions: Int) {
    let count = 100_000
    let keys = (0..<count).map { "k\($0)" }
    let value = Data(repeating: 7, count: 16)
    for policy in EvictionPolicy.allCases {
        var sets: [Double] = []
        var gets: [Double] = []
        for _ in 0..<repetitions {
            let cache = MemoryCache<String, Data>(configuration: .init(evictionPolicy: policy))
            sets.append(Double(count) / seconds { for key in keys { cache.setValue(value, forKey: key) } })
            var found = 0
            gets.append(Double(count) / seconds { for key in keys where cache.value(forKey: key) != nil { found += 1 } })
            precondition(found == count)
        }
        print(String(format: "MemoryCache %-7@ set %6.2f M ops/s   get (hit) %6.2f M ops/s", "\(policy)", median(sets) / 1e6, median(gets) / 1e6))
    }
}

func measureDisk(base: URL, repetitions: Int) throws {
    let cases = [(1024, 10_000), (64 * 1024, 2_000), (1024 * 1024, 200)]
    try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    for (size, count) in cases {
        let values = (0..<min(count, 64)).map { _ in randomBytes(size) }
        let keys = (0..<count).map { String(format: "key-%08d", $0) }
        var stores: [Double] = []
        var retrieves: [Double] = []
        for _ in 0..<repetitions {
            let folder = base.appendingPathComponent("hoard-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let cache = try DiskCache(directory: folder, configuration: .init(sizeLimit: 1 << 40))
            stores.append(Double(count) / (try seconds {
                for (index, key) in keys.enumerated() { try cache.store(values[index % values.count], forKey: key) }
            }))
            retrieves.append(Double(count) / (try seconds {
                for key in keys {
                    guard let data = try cache.data(forKey: key), data.count == size else { fatalError("miss for \(key)") }
                }
            }))
        }
        print(String(format: "DiskCache %7d B x %5d: store %8.0f ops/s  retrieve %8.0f ops/s", size, count, median(stores), median(retrieves)))
    }
}
