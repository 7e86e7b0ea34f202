import Foundation

// Usage:
//   HoardMeasure codec JPG [PNG] [--seconds S]  JPEG decode (1/1..1/8) and encode q90, PNG decode/encode: fps, MP/s
//                                               (S seconds per figure after one warm-up call, default 3 as tjbench)
//   HoardMeasure memory [reps]                  MemoryCache set/get, 100k String keys, 16-byte values (as memcache_bench.swift)
//   HoardMeasure hoard-hit DIR [reps]           Hoard.retrieve answered by memory: 10k keys x 10 rounds, M hits/s
//   HoardMeasure disk DIR [reps] [--sync]       DiskCache store/retrieve of 1 KiB x 10000, 64 KiB x 2000, 1 MiB x 200
//                                               (as bench_diskcache.py), a fresh cache folder under DIR per rep;
//                                               --sync: sync() and sleep 1 s before each rep, as bench_diskcache.py
//   HoardMeasure resize JPG [--seconds S]         decode with DCT scaling, then resize to 256 px: us per call
//   HoardMeasure peak JPG [--size 256] [--quality 85]
//                                               resident-memory growth while making one thumbnail of JPG
// Single thread throughout.

let usage = """
    usage: HoardMeasure codec JPG [PNG] [--seconds S] | memory [reps] | hoard-hit DIR [reps]
                        | disk DIR [reps] [--sync]
                        | resize JPG [--seconds S] | peak JPG [--size PIXELS] [--quality Q]

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

let arguments = Arguments(Array(CommandLine.arguments.dropFirst()), valued: ["--seconds", "--size", "--quality"])
let positional = arguments.positional
switch positional.first {
case "codec" where positional.count >= 2:
    try measureCodecs(
        jpegPath: positional[1], pngPath: positional.count > 2 ? positional[2] : nil,
        seconds: arguments.options["--seconds"].flatMap(Double.init) ?? 3)
case "resize" where positional.count >= 2:
    try measureResize(jpegPath: positional[1], seconds: arguments.options["--seconds"].flatMap(Double.init) ?? 2)
case "memory":
    try measureMemory(repetitions: arguments.integer(at: 1, default: 5))
case "hoard-hit" where positional.count >= 2:
    try await measureHoardHit(
        folder: URL(fileURLWithPath: positional[1]), repetitions: arguments.integer(at: 2, default: 7))
case "disk" where positional.count >= 2:
    try measureDisk(
        base: URL(fileURLWithPath: positional[1]), repetitions: arguments.integer(at: 2, default: 5),
        settles: arguments.flags.contains("--sync"))
case "peak" where positional.count >= 2:
    try measurePeakMemory(
        jpegPath: positional[1], box: arguments.options["--size"].flatMap(Int.init) ?? 256,
        quality: arguments.options["--quality"].flatMap(Int.init) ?? 85)
default:
    FileHandle.standardError.write(Data(usage.utf8))
    exit(64)
}
