import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// A store that returned is readable until something the user asked for takes
/// it away, whatever clean-up runs beside it.
@Suite("DiskCache: trims beside a writer lose no store", .serialized)
struct DiskCacheConcurrentTrimTests {
    @Test("A second cache trimming in a loop while a writer overwrites small records with large ones")
    func trimBesideWriter() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        // Two instances: nothing in common but the folder, as two processes.
        // A trimmer that never pauses keeps the write lock busy.
        let configuration = DiskCache.Configuration(sizeLimit: 1 << 40).waitingLongForTheWriteLock()
        let writer = try DiskCache(directory: folder.cacheURL, configuration: configuration)
        let trimmer = try DiskCache(directory: folder.cacheURL, configuration: configuration)
        let stop = Lock(false)
        let trims = Lock(0)
        let trimError = Lock<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while !stop.withLock({ $0 }) {
                do { try trimmer.trim() } catch { trimError.withLock { $0 = "\(error)" } }
                trims.withLock { $0 += 1 }
            }
            done.signal()
        }
        defer {
            stop.withLock { $0 = true }
            done.wait()
        }
        let sizes = [100, 10_000, 100_000, 3_000, 200_000]
        var lost: [String] = []
        var stores = 0
        let deadline = ContinuousClock.now + .seconds(4)
        var round: UInt64 = 0
        while ContinuousClock.now < deadline || trims.withLock({ $0 }) < 20 {
            round += 1
            for index in 0..<16 {
                let key = "key-\(index)"
                let value = StressValue.make(key: key, version: round, byteCount: sizes[Int(round + UInt64(index)) % sizes.count])
                try writer.store(value, forKey: key)
                stores += 1
                if try writer.data(forKey: key) != value { lost.append("\(key) round \(round)") }
            }
            if ContinuousClock.now > deadline + .seconds(30) { break }
        }
        #expect(lost.isEmpty, "\(lost.count) of \(stores) stores read back as misses: \(lost.prefix(5))")
        #expect(trimError.withLock { $0 } == nil)
        #expect(trims.withLock { $0 } >= 20)
    }
}
