import Foundation
import HoardSystem
import HoardTestSupport
import Testing

@testable import HoardCore

/// ``RecencyMarks``: a read's mark waits in memory and is written with others — when a batch is
/// full, within the flush delay, or before this process's trim reads the order of use — never
/// while another writer holds the lock, never moving a date back, and never more than its capacity.
@Suite("RecencyMarks")
struct RecencyMarksTests {
    /// Stores `count` entries of `byteCount` bytes, `key-0` first, then moves the clock past the
    /// recency interval so that a read marks.
    private func filled(_ parts: DiskParts, count: Int, byteCount: Int = 100) throws {
        for index in 0..<count {
            try parts.store("key-\(index)", DiskParts.payload("key-\(index)", byteCount: byteCount))
            parts.clock.advance(by: 1)
        }
        parts.clock.advance(by: parts.configuration.recencyUpdateInterval + 1)
    }

    private func markingRead(_ parts: DiskParts, _ key: String, by reader: RecordReader? = nil) throws -> Data? {
        try (reader ?? parts.reader).read(forKey: key, options: [.payload, .markUsed], now: parts.clock.now)?.payload
    }

    /// Marks whose timer waits a minute, and a reader that makes them: what a check of what waits
    /// in memory uses, so that a stalled machine's timer cannot write them first.
    private func slowMarks(_ parts: DiskParts) -> (RecencyMarks, RecordReader) {
        let marks = RecencyMarks(index: parts.index, flushDelayMilliseconds: 60_000)
        let reader = RecordReader(
            index: parts.index, segments: parts.segments, files: parts.files, marks: marks, configuration: parts.configuration)
        return (marks, reader)
    }

    private func lastUsed(_ parts: DiskParts, _ key: String) throws -> Double? {
        let hash = try EntryFiles.keyHash(key)
        return try parts.index.withDatabase(writing: false) { try EntryTable(connection: $0).row(hash)?.lastUsed }
    }

    /// Waits (up to 20 s, a loaded machine's bound, not a figure) until `key`'s last use in the
    /// index is the clock's now: its mark has been written.
    private func waitUntilWritten(_ parts: DiskParts, _ key: String) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while try lastUsed(parts, key) != parts.clock.now.timeIntervalSinceReferenceDate, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test("A read's mark is written by the timer, with no other call")
    func writtenByTheTimer() async throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try filled(parts, count: 3)
        #expect(try markingRead(parts, "key-0") == DiskParts.payload("key-0", byteCount: 100))
        try await waitUntilWritten(parts, "key-0")
        #expect(try lastUsed(parts, "key-0") == parts.clock.now.timeIntervalSinceReferenceDate)
        #expect(parts.marks.pendingCount == 0)
    }

    @Test("A full batch is written by the read that fills it")
    func fullBatch() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try filled(parts, count: RecencyMarks.batchCount)
        let (marks, reader) = slowMarks(parts)
        let stored = try #require(try lastUsed(parts, "key-0"))
        for index in 0..<(RecencyMarks.batchCount - 1) { _ = try markingRead(parts, "key-\(index)", by: reader) }
        #expect(marks.pendingCount == RecencyMarks.batchCount - 1)
        #expect(try lastUsed(parts, "key-0") == stored, "written before the batch was full")
        _ = try markingRead(parts, "key-\(RecencyMarks.batchCount - 1)", by: reader)
        #expect(marks.pendingCount == 0)
        for index in 0..<RecencyMarks.batchCount {
            #expect(try lastUsed(parts, "key-\(index)") == parts.clock.now.timeIntervalSinceReferenceDate)
        }
    }

    @Test("While another writer holds the lock the marks wait, and are written once it lets go")
    func busyLock() async throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try filled(parts, count: RecencyMarks.batchCount)
        let holder = try SQLiteConnection(path: parts.index.path, busyTimeoutMilliseconds: 1_000, generation: 0)
        try holder.execute("BEGIN IMMEDIATE")
        let began = ContinuousClock.now
        for index in 0..<RecencyMarks.batchCount { _ = try markingRead(parts, "key-\(index)") }
        #expect(ContinuousClock.now - began < .seconds(10), "a read waited for the writer")
        #expect(parts.marks.pendingCount == RecencyMarks.batchCount)
        try holder.execute("COMMIT")
        try await waitUntilWritten(parts, "key-0")
        for index in 0..<RecencyMarks.batchCount {
            #expect(try lastUsed(parts, "key-\(index)") == parts.clock.now.timeIntervalSinceReferenceDate)
        }
        #expect(parts.marks.pendingCount == 0)
    }

    @Test("This process's trim writes the marks first: the entry just read is kept")
    func trimSeesTheMarks() throws {
        let parts = try DiskParts(sizeLimit: 1 << 20)
        defer { parts.remove() }
        try filled(parts, count: 40, byteCount: 60_000)  // 2.4 MB in segments
        let (marks, reader) = slowMarks(parts)
        let maintenance = Maintenance(
            index: parts.index, segments: parts.segments, files: parts.files, reconciler: parts.reconciler, marks: marks,
            configuration: parts.configuration)
        _ = try markingRead(parts, "key-0", by: reader)  // the oldest store, now the most recently used
        #expect(marks.pendingCount == 1)
        try maintenance.trim()
        #expect(marks.pendingCount == 0)
        #expect(try parts.read("key-0") == DiskParts.payload("key-0", byteCount: 60_000))
        #expect(try parts.read("key-1") == nil)
        #expect(try parts.read("key-39") != nil)
    }

    @Test("A mark never moves a last use back, and at most the capacity wait")
    func neverBackAndBounded() throws {
        let parts = try DiskParts()
        defer { parts.remove() }
        try filled(parts, count: 1)
        let hash = try EntryFiles.keyHash("key-0")
        let stored = try #require(try lastUsed(parts, "key-0"))
        parts.marks.mark(hash, at: Date(timeIntervalSinceReferenceDate: stored - 1_000))
        parts.marks.flush(waiting: true)
        #expect(try lastUsed(parts, "key-0") == stored)

        let holder = try SQLiteConnection(path: parts.index.path, busyTimeoutMilliseconds: 1_000, generation: 0)
        try holder.execute("BEGIN IMMEDIATE")
        defer { try? holder.execute("ROLLBACK") }
        for number in 0..<(RecencyMarks.capacity + 500) {
            parts.marks.mark(withUnsafeBytes(of: UInt64(number)) { Array($0) } + Array(repeating: 0, count: 24), at: parts.clock.now)
        }
        #expect(parts.marks.pendingCount == RecencyMarks.capacity)
    }
}
