import Foundation

/// Runs `body` repeatedly for about `seconds` after one warm-up call; returns calls per second.
func callsPerSecond(seconds: Double, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var count = 0
    let start = DispatchTime.now().uptimeNanoseconds
    var elapsed = 0.0
    repeat {
        try body()
        count += 1
        elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < seconds
    return Double(count) / elapsed
}

/// Times one run of `body`, in seconds.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

/// Random bytes that do not compress, like the peers' `os.urandom`.
func randomBytes(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        for i in stride(from: 0, to: count, by: 8) {
            let word = generator.next()
            withUnsafeBytes(of: word) { raw[i..<min(i + 8, count)].copyBytes(from: $0.prefix(count - i)) }
        }
    }
    return data
}
