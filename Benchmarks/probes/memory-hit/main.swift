import Foundation

// The probe's entry point: Benchmarks/Sources/HoardMeasure/HoardHit.swift is copied beside this
// file, so that both builds measure with the same code.
//   HitMeasure FOLDER REPETITIONS   prints "Hoard.retrieve memory hit  N.NNN M hits/s"

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

// Not on the main actor: every `await` from top-level code would hop threads.
nonisolated func run() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count == 3, let repetitions = Int(arguments[2]), repetitions > 0 else {
        print("usage: HitMeasure FOLDER REPETITIONS")
        exit(64)
    }
    try await measureHoardHit(folder: URL(fileURLWithPath: arguments[1], isDirectory: true), repetitions: repetitions)
}

try await run()
