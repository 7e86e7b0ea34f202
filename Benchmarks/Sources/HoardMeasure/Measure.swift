import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// Flushes dirty pages and waits a second, as `peers/diskcache_bench.py` does before each repetition
/// (`os.sync(); time.sleep(1.0)`), so that no repetition pays for the previous one's writeback.
func settleFileSystem() {
    sync()
    Thread.sleep(forTimeInterval: 1)
}

/// Random bytes that do not compress, like the peers' `os.urandom`.
///
/// xoshiro256** seeded from the system generator: one `getrandom` per call instead of one per
/// eight bytes.
func randomBytes(_ count: Int) -> Data {
    var generator = Xoshiro256StarStar(seed: SystemRandomNumberGenerator())
    var data = Data(count: count)
    data.withUnsafeMutableBytes { raw in
        var offset = 0
        while offset + 8 <= count {
            raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        if offset < count {
            withUnsafeBytes(of: generator.next()) { raw[offset...].copyBytes(from: $0.prefix(count - offset)) }
        }
    }
    return data
}

/// xoshiro256** (Blackman and Vigna): fast, and its output looks random to any compressor.
struct Xoshiro256StarStar: RandomNumberGenerator {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: some RandomNumberGenerator) {
        var seed = seed
        state = (seed.next(), seed.next(), seed.next(), seed.next())
        if state == (0, 0, 0, 0) { state.0 = 1 }
    }

    mutating func next() -> UInt64 {
        let result = rotateLeft(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotateLeft(state.3, 45)
        return result
    }

    private func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }
}
