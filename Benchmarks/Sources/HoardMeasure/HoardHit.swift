import Foundation
import Hoard

/// `Hoard.retrieve` answered by the memory tier: 10,000 `Data` values of 16 bytes under String
/// keys, read in a fixed shuffled order, one task. The figure issue work on the tiers is held to:
/// a memory hit must not get slower. Prints the median of `repetitions` rounds, M hits/s.
func measureHoardHit(folder: URL, repetitions: Int) async throws {
    let count = 10_000
    var configuration = Hoard.Configuration(name: "measure", directory: folder)
    configuration.memoryCountLimit = count * 2
    let hoard = try Hoard(configuration: configuration)
    let keys = (0..<count).map { "key-\($0)" }
    let value = Data(repeating: 7, count: 16)
    for key in keys { try await hoard.store(value, forKey: key) }
    var order = Array(keys)
    var state: UInt64 = 42
    for index in order.indices.reversed() {  // a fixed shuffle, the same in every build
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        order.swapAt(index, Int(state >> 33) % (index + 1))
    }
    var rates: [Double] = []
    for _ in 0..<repetitions {
        var found = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<10 {
            for key in order where try await hoard.retrieve(Data.self, forKey: key) != nil { found += 1 }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        precondition(found == count * 10, "Hoard lost memory entries: \(found) of \(count * 10)")
        rates.append(Double(found) / elapsed)
    }
    print(String(format: "Hoard.retrieve memory hit %6.3f M hits/s", median(rates) / 1e6))
}
