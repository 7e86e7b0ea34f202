// libFuzzer harness: bytes as a disk cache record. Each input is checked twice: as it is
// (mostly stopped by the checksums), and with its checksums and payload length repaired, so that
// the length, key, expiry and payload checks behind them run too. Each variant goes through
// `CacheRecord.Header.parse` directly; then as a record kept inside the index, read by
// `entry(forKey:)`; then as an entry file the index does not know, indexed by `reconcileIndex()`
// (header only, key checked against the file name), listed by `entryInfos()` and read by
// `entry(forKey:)` (header and payload, key checked against the key asked for).
//
// With HOARD_FUZZ_WRITE_SEEDS=<folder>, it writes valid entries with DiskCache.store into that
// folder instead (the seed corpus; Fuzz/run does this), and exits.
import Foundation
import Logging

@testable import HoardCore

#if canImport(Glibc)
    import Glibc
#endif

/// The harness's clock: entries expiring after it are live, before it expired.
private let now = Date(timeIntervalSinceReferenceDate: 800_000_000)  // 2026-05-09
private let fallbackKey = "fuzz"

private let cacheFolder: URL = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    return URL(fileURLWithPath: base).appendingPathComponent("hoard-entry-fuzz-\(getpid())")
}()

private let cache: DiskCache = {
    var configuration = DiskCache.Configuration(
        logger: .init(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }))
    configuration.now = { now }
    do {
        return try DiskCache(directory: cacheFolder, configuration: configuration)
    } catch {
        FuzzSupport.fail("cannot create the cache folder: \(error)")
    }
}()

@_cdecl("LLVMFuzzerInitialize")
public func entryFuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>?,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> Int32 {
    FuzzSupport.writeSeedsIfAsked(writeSeeds)
    atexit { try? FileManager.default.removeItem(at: cacheFolder) }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func entryFuzzerTestOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let bytes = [UInt8](UnsafeBufferPointer(start: start, count: count))
    let hash = FuzzSupport.hash(UnsafeRawBufferPointer(start: start, count: count))
    check(bytes)
    if let repaired = repaired(bytes, hash: hash), repaired != bytes { check(repaired) }
    return 0
}

/// Parses `bytes`, then puts them in the cache as an inline record and as an entry file, and reads
/// them back through the cache.
private func check(_ bytes: [UInt8]) {
    let parsed = CacheRecord.Header.parse(bytes)
    switch parsed {
    case .success(let header):
        FuzzSupport.check(header.byteCount <= bytes.count, "header of \(header.byteCount) bytes from \(bytes.count)")
        FuzzSupport.check(
            header.key.utf8.count == Int(readUInt32(bytes, at: 12)), "key length differs from the length field")
        let encoded = header.encoded()
        FuzzSupport.check(encoded.count == header.byteCount, "encoded header has \(encoded.count) bytes")
        FuzzSupport.check(CacheRecord.Header.parse(encoded) == .success(header), "header does not round-trip")
    case .failure(.truncated(let required)):
        FuzzSupport.check(required > bytes.count, "truncated, needing \(required) of \(bytes.count) bytes")
    case .failure:
        break
    }
    let header = try? parsed.get()
    let key = header?.key ?? fallbackKey
    guard let location = try? cache.location(forKey: key), let hash = try? DiskCache.keyHash(key) else {
        FuzzSupport.fail("no entry file name for a \(key.utf8.count)-byte key")
    }
    let intact =
        header.map { header in
            bytes.count == header.fileByteCount
                && CRC32C.checksum(bytes[header.byteCount...]) == header.payloadChecksum
        } ?? false
    let live = header.map { !$0.isExpired(at: now) } ?? false
    do {
        // A record inside the index, as a damaged database page or another writer could leave it.
        try insertRow(hash: hash, key: key, record: bytes)
        expectLookup(try cache.entry(forKey: key), header: header, bytes: bytes, returned: intact && live)
        if !(intact && live) {
            let left = try cache.entryCount
            FuzzSupport.check(left == 0, "a damaged or expired record was left in the index")
        }
        try clearIndex()

        // An entry file the index does not know (a crash between its rename and its row): indexed
        // by reconciling (header only), then read.
        write(bytes, to: location)
        try cache.reconciler.reconcile()
        let infos = try cache.entryInfos()
        if let header, header.fileByteCount == bytes.count, live {
            FuzzSupport.check(infos.count == 1, "a live entry file with a valid header was not indexed")
            FuzzSupport.check(infos[0].key == header.key, "listed key differs")
            FuzzSupport.check(infos[0].payloadByteCount == header.payloadByteCount, "listed payload size differs")
            FuzzSupport.check(infos[0].fileByteCount == bytes.count, "listed file size differs")
        } else {
            FuzzSupport.check(infos.isEmpty, "listed \(infos.count) entries for a damaged or expired file")
            FuzzSupport.check(!fileExists(location.path), "a damaged or expired file was left in place")
        }
        expectLookup(try cache.entry(forKey: key), header: header, bytes: bytes, returned: intact && live)
        if !(intact && live) {
            FuzzSupport.check(!fileExists(location.path), "a damaged or expired file was left in place")
        }
    } catch {
        FuzzSupport.fail("reading threw: \(error)")
    }
    // Leave the folder and the index empty: each input starts from nothing.
    _ = unlink(location.path)
    _ = rmdir(location.shardPath)
    do { try clearIndex() } catch { FuzzSupport.fail("cannot empty the index: \(error)") }
}

/// Checks what a lookup returned against what `bytes` hold.
private func expectLookup(_ entry: DiskCache.Entry?, header: CacheRecord.Header?, bytes: [UInt8], returned: Bool) {
    guard returned, let header else {
        FuzzSupport.check(entry == nil, "a damaged or expired entry was returned")
        return
    }
    guard let entry else { FuzzSupport.fail("an intact, live entry was not returned") }
    FuzzSupport.check(entry.key == header.key, "returned key differs")
    FuzzSupport.check(entry.data.elementsEqual(bytes[header.byteCount...]), "returned payload differs")
    FuzzSupport.check(entry.creationDate == header.creationDate, "returned creation date differs")
    FuzzSupport.check(entry.expirationDate == header.expirationDate, "returned expiration date differs")
}

/// Puts `record` in the index under `key` as it is, whatever it holds.
private func insertRow(hash: [UInt8], key: String, record: [UInt8]) throws {
    try cache.index.withConnection(writing: true) { connection in
        let insert = try connection.uncachedStatement(
            "INSERT OR REPLACE INTO entries (hash, key, size, created, expires, used, record) VALUES (?1, ?2, ?3, 0, NULL, 0, ?4)")
        insert.bind(1, hash)
        insert.bind(2, key)
        insert.bind(3, record.count)
        insert.bind(4, record)
        try insert.run()
    }
}

private func clearIndex() throws {
    try cache.index.withConnection(writing: true) { try $0.execute("DELETE FROM entries") }
}

/// `bytes` with the header checksum recomputed, and (as `hash` picks) the payload length set to
/// what follows the key and the payload checksum recomputed; `nil` when there is no full header.
private func repaired(_ bytes: [UInt8], hash: UInt32) -> [UInt8]? {
    let fixed = CacheRecord.Header.fixedByteCount
    guard bytes.count >= fixed else { return nil }
    let keyCount = Int(readUInt32(bytes, at: 12))
    guard keyCount <= DiskCache.maximumKeyByteCount, fixed + keyCount <= bytes.count else { return nil }
    var result = bytes
    let payloadStart = fixed + keyCount
    if hash & 1 == 0 || hash & 6 == 0 {
        write(UInt64(bytes.count - payloadStart), into: &result, at: 32)
    }
    if hash & 2 == 0 || hash & 6 == 0 {
        write(CRC32C.checksum(result[payloadStart...]), into: &result, at: 40)
    }
    var checksum = CRC32C()
    checksum.update(result[0..<44])
    checksum.update(result[fixed..<payloadStart])
    write(checksum.value, into: &result, at: 44)
    return result
}

// MARK: - Seeds

/// Valid entries of every shape the cache writes: empty and large payloads, keys from empty to
/// 4 KiB, with and without expiry, and expired ones.
private func writeSeeds(to folder: URL) throws -> Int {
    let keys = [
        "", "a", "greeting", "https://example.com/images/a.jpg?size=256", "../../etc/passwd", "ключ 🔑",
        "nul\u{0}inside", String(repeating: "k", count: 4096),
    ]
    let payloads: [Data] = [
        Data(), Data("hello".utf8), Data(#"{"name":"Ada","visits":3}"#.utf8),
        TypedPayload.wrap(Data("cached text".utf8), typeName: "Swift.String"),
        Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 37) }), Data(repeating: 0xAB, count: 20_000),
    ]
    let writeClocks: [(Date, [Expiry])] = [
        (now, [.never, .seconds(3600), .date(now.addingTimeInterval(365 * 86_400))]),
        (now.addingTimeInterval(-7200), [.seconds(3600)]),  // expired by the harness's clock
    ]
    let source = folder.appendingPathComponent(".cache")
    var written = 0
    for (clock, expiries) in writeClocks {
        // A file per entry, so that each can be copied out as a seed.
        var configuration = DiskCache.Configuration(inlineEntryLimit: 0)
        configuration.now = { clock }
        let seedCache = try DiskCache(directory: source, configuration: configuration)
        for (index, key) in keys.enumerated() {
            for expiry in expiries {
                try seedCache.store(payloads[(index + written) % payloads.count], forKey: key, expiry: expiry)
                let destination = folder.appendingPathComponent("entry-\(written)")
                try? FileManager.default.removeItem(at: destination)
                try FileManager.default.copyItem(atPath: seedCache.location(forKey: key).path, toPath: destination.path)
                written += 1
            }
        }
    }
    try FileManager.default.removeItem(at: source)
    return written
}

// MARK: - Files and bytes

private func write(_ bytes: [UInt8], to location: DiskCache.Location) {
    _ = mkdir(location.shardPath, 0o700)
    let descriptor = open(location.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard descriptor >= 0 else { FuzzSupport.fail("cannot create \(location.path): errno \(errno)") }
    defer { close(descriptor) }
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { raw in
            Glibc.write(descriptor, raw.baseAddress.map { $0 + offset }, raw.count - offset)
        }
        guard written > 0 else { FuzzSupport.fail("cannot write \(location.path): errno \(errno)") }
        offset += written
    }
}

private func fileExists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
}

private func readUInt32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
}

private func write<Integer: FixedWidthInteger>(_ value: Integer, into bytes: inout [UInt8], at offset: Int) {
    withUnsafeBytes(of: value.littleEndian) { raw in
        for (index, byte) in raw.enumerated() { bytes[offset + index] = byte }
    }
}
