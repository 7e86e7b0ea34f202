import Foundation
import Hoard

// Hoard.retrieve answered by memory: 10,000 16-byte Data values, fixed shuffled order, one task;
// prints each round's M hits/s.
nonisolated func run() async throws {
    let folder = URL(fileURLWithPath: CommandLine.arguments[1], isDirectory: true)
    let rounds = Int(CommandLine.arguments[2]) ?? 5
    let count = 10_000
    var configuration = Hoard.Configuration(name: "measure", directory: folder)
    configuration.memoryCountLimit = count * 2
    let hoard = try Hoard(configuration: configuration)
    let keys = (0..<count).map { "key-\($0)" }
    let value = Data(repeating: 7, count: 16)
    for key in keys { try await hoard.store(value, forKey: key) }
    var order = keys
    var state: UInt64 = 42
    for index in order.indices.reversed() {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        order.swapAt(index, Int(state >> 33) % (index + 1))
    }
    for _ in 0..<rounds {
        var found = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<10 {
            for key in order where try await hoard.retrieve(Data.self, forKey: key) != nil { found += 1 }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        precondition(found == count * 10)
        print(String(format: "%.3f", Double(found) / elapsed / 1e6))
    }

}

try await run()
