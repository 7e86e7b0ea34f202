import Foundation

// Usage:
//   HoardMeasure codec JPG [PNG] [--seconds S]  JPEG decode (1/1..1/8) and encode q90, PNG decode/encode: fps, MP/s
//                                               (S seconds per figure after one warm-up call, default 3 as tjbench)
//   HoardMeasure webp-decode WEBP... [--seconds S]  WebP decode at full size per file: fps, MP/s (as dwebp -v)
//   HoardMeasure memory [reps]                  MemoryCache set/get, 100k String keys, 16-byte values (as memcache_bench.swift)
//   HoardMeasure hoard-hit DIR [reps]           Hoard.retrieve answered by memory: 10k keys x 10 rounds, M hits/s
//   HoardMeasure disk DIR [reps] [--sync]       DiskCache store/retrieve of 1 KiB x 10000, 16 KiB x 10000, 64 KiB x 2000, 1 MiB x 200
//                                               (as peers/diskcache_bench.py), a fresh cache folder under DIR per rep;
//                                               --sync: sync() and sleep 1 s before each rep, as peers/diskcache_bench.py
//   HoardMeasure hoard-disk DIR [reps] [--sync]  Hoard.store/retrieve(Data) of 1 KiB x 10000 and 16 KiB x 10000 through
//                                               the manager, memory tier of one entry (every retrieve reads the disk)
//                                               --retrieve-rounds N repeats each retrieve pass; --size keeps one row
//   HoardMeasure hoard-disk-overhead DIR [rounds]  what the manager adds to a disk hit: the same stored values
//                                               read in alternating 1,000-key chunks through Hoard and DiskCache
//   HoardMeasure disk-loop DIR SIZE COUNT [--op store|retrieve|mixed] [--seconds S]
//                                               one operation round after round for S seconds (default 3): retrieve
//                                               (default) reads COUNT stored values of SIZE bytes, store writes COUNT
//                                               new keys a round, mixed reads each stored key and stores a new value
//                                               for it; ops/s (pairs/s for mixed); a loop to profile
//   HoardMeasure populate DIR COUNT SIZE [--earlier-format]
//                                               a new cache in DIR with COUNT entries of SIZE bytes; --earlier-format:
//                                               as format 1 left it (a file per entry, no index)
//   HoardMeasure disk-scale-populate DIR COUNT SIZE  a new cache in DIR with COUNT entries of SIZE bytes: ops/s
//   HoardMeasure disk-scale-use DIR COUNT SIZE  on that folder, in a new process: open, first store, 10,000
//                                               stores and random retrieves, count and bytes, a trim to half
//   HoardMeasure compaction DIR                 20,000 entries of 4 KiB, then a trim to a quarter of them while a
//                                               reader and a writer run: the trim's time, its compaction steps, and
//                                               the longest read and write meanwhile
//   HoardMeasure resize JPG [--seconds S]         decode with DCT scaling, then resize to 256 px: us per call
//   HoardMeasure peak JPG [--size 256] [--quality 85]
//                                               resident-memory growth while making one thumbnail of JPG
//   HoardMeasure redis-tier --port P [--size BYTES] [--callers N] [--seconds S] [--op get|set] [--on-loop]
//                                               RedisTier get (hits) or set against redis-server on 127.0.0.1:P,
//                                               N tasks at once on the tier's one pipelined connection, on Swift's
//                                               global pool or (--on-loop) preferring the tier's event loop:
//                                               ops/s (defaults: 1024 B, 1 caller, 3 s, get)
// Single thread throughout, except redis-tier with N > 1.

let usage = """
    usage: HoardMeasure codec JPG [PNG] [--seconds S] | webp-decode WEBP... [--seconds S] | memory [reps] | hoard-hit DIR [reps]
                        | disk DIR [reps] [--sync] | hoard-disk DIR [reps] [--sync] [--retrieve-rounds N] [--size 1024|16384] | hoard-disk-overhead DIR [rounds] | disk-loop DIR SIZE COUNT [--op store|retrieve|mixed] [--seconds S] | populate DIR COUNT SIZE [--earlier-format] | compaction DIR
                        | resize JPG [--seconds S] | peak JPG [--size PIXELS] [--quality Q]
                        | redis-tier --port P [--size BYTES] [--callers N] [--seconds S] [--op get|set] [--on-loop]

    """

/// The command line without its flags, and the flags' values.
struct Arguments {
    var positional: [String] = []
    var options: [String: String] = [:]
    var flags: Set<String> = []

    init(_ arguments: [String], valued: Set<String>) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument.hasPrefix("--") {
                if valued.contains(argument), index + 1 < arguments.count {
                    options[argument] = arguments[index + 1]
                    index += 1
                } else {
                    flags.insert(argument)
                }
            } else {
                positional.append(argument)
            }
            index += 1
        }
    }

    func integer(at index: Int, default value: Int) -> Int {
        index < positional.count ? Int(positional[index]) ?? value : value
    }
}

let arguments = Arguments(
    Array(CommandLine.arguments.dropFirst()),
    valued: ["--seconds", "--size", "--quality", "--port", "--callers", "--op", "--retrieve-rounds"])
let positional = arguments.positional
switch positional.first {
case "codec" where positional.count >= 2:
    try measureCodecs(
        jpegPath: positional[1], pngPath: positional.count > 2 ? positional[2] : nil,
        seconds: arguments.options["--seconds"].flatMap(Double.init) ?? 3)
case "webp-decode" where positional.count >= 2:
    try measureWebPDecode(
        paths: Array(positional.dropFirst()), seconds: arguments.options["--seconds"].flatMap(Double.init) ?? 3)
case "resize" where positional.count >= 2:
    try measureResize(jpegPath: positional[1], seconds: arguments.options["--seconds"].flatMap(Double.init) ?? 2)
case "memory":
    try measureMemory(repetitions: arguments.integer(at: 1, default: 5))
case "hoard-hit" where positional.count >= 2:
    try await measureHoardHit(
        folder: URL(fileURLWithPath: positional[1]), repetitions: arguments.integer(at: 2, default: 7))
case "hoard-disk" where positional.count >= 2:
    try await measureHoardDisk(
        base: URL(fileURLWithPath: positional[1]), repetitions: arguments.integer(at: 2, default: 5),
        settles: arguments.flags.contains("--sync"),
        retrieveRounds: arguments.options["--retrieve-rounds"].flatMap(Int.init).map { min(max($0, 1), 1000) } ?? 1,
        size: arguments.options["--size"].flatMap(Int.init))
case "hoard-disk-overhead" where positional.count >= 2:
    for size in [1024, 16 * 1024] {
        try await measureHoardDiskOverhead(
            base: URL(fileURLWithPath: positional[1]), size: size, count: 10_000,
            rounds: arguments.integer(at: 2, default: 3))
    }
case "disk" where positional.count >= 2:
    try measureDisk(
        base: URL(fileURLWithPath: positional[1]), repetitions: arguments.integer(at: 2, default: 5),
        settles: arguments.flags.contains("--sync"))
case "disk-loop" where positional.count == 4:
    guard let size = Int(positional[2]), (0...(64 << 20)).contains(size), let count = Int(positional[3]),
        (1...1_000_000).contains(count),
        let operation = DiskLoopOperation(rawValue: arguments.options["--op"] ?? "retrieve")
    else {
        FileHandle.standardError.write(
            Data("disk-loop needs SIZE 0-67108864, COUNT 1-1000000 and --op store|retrieve|mixed\n".utf8))
        exit(64)
    }
    try measureDiskLoop(
        base: URL(fileURLWithPath: positional[1]), size: size, count: count,
        seconds: arguments.options["--seconds"].flatMap(Double.init).flatMap { (0.1...3600).contains($0) ? $0 : nil }
            ?? 3,
        operation: operation)
case "populate" where positional.count == 4:
    guard let count = Int(positional[2]), (0...10_000_000).contains(count), let size = Int(positional[3]),
        (0...(64 << 20)).contains(size)
    else {
        FileHandle.standardError.write(Data("populate needs COUNT 0-10000000 and SIZE 0-67108864\n".utf8))
        exit(64)
    }
    try populateDisk(
        folder: URL(fileURLWithPath: positional[1]), count: count, size: size,
        earlierFormat: arguments.flags.contains("--earlier-format"))
case "disk-scale-populate" where positional.count == 4, "disk-scale-use" where positional.count == 4:
    guard let count = Int(positional[2]), (1...10_000_000).contains(count), let size = Int(positional[3]),
        (0...(64 << 20)).contains(size)
    else {
        FileHandle.standardError.write(Data("\(positional[0]) needs DIR, COUNT 1-10000000 and SIZE 0-67108864\n".utf8))
        exit(64)
    }
    if positional[0] == "disk-scale-populate" {
        try populateForScale(folder: URL(fileURLWithPath: positional[1]), count: count, size: size)
    } else {
        try measureScaleUse(folder: URL(fileURLWithPath: positional[1]), count: count, size: size)
    }
case "compaction" where positional.count == 2:
    try measureCompaction(folder: URL(fileURLWithPath: positional[1]))
case "peak" where positional.count >= 2:
    try measurePeakMemory(
        jpegPath: positional[1], box: arguments.options["--size"].flatMap(Int.init) ?? 256,
        quality: arguments.options["--quality"].flatMap(Int.init) ?? 85)
case "redis-tier":
    guard let port = arguments.options["--port"].flatMap(Int.init), (1...65535).contains(port),
        let size = Int(arguments.options["--size"] ?? "1024"), size >= 0,
        let callers = Int(arguments.options["--callers"] ?? "1"), (1...1024).contains(callers),
        let seconds = Double(arguments.options["--seconds"] ?? "3"), seconds > 0, seconds <= 3600,
        let operation = RedisTierOperation(rawValue: arguments.options["--op"] ?? "get")
    else {
        let message = "redis-tier needs --port 1-65535 (--size >= 0, --callers 1-1024, --seconds 0-3600, --op get|set)"
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(64)
    }
    do {
        try await measureRedisTier(
            port: port, valueByteCount: size, callers: callers, seconds: seconds, operation: operation,
            onLoop: arguments.flags.contains("--on-loop"))
    } catch {
        // A server that is not there is an outcome to report, not a crash to backtrace.
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
