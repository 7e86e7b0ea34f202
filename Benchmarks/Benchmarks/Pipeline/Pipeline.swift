import Benchmark
import Foundation
import Hoard
import HoardBenchmarkSupport
import Logging

// From a photo's bytes to a 256 px thumbnail's bytes (decode with DCT scaling, Lanczos resize,
// JPEG at quality 85: the peers' and the hoard tool's setting), one image per iteration; and
// Hoard.retrieve of a cached thumbnail from memory and from disk, 1,000 per iteration.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident, Rate.imagesPerSecond],
        warmupIterations: 3,
        maxDuration: .seconds(1),
        maxIterations: 500)
    Benchmark.teardown = { ScratchFolder.removeAll() }

    for format in ["JPEG", "PNG"] {
        Benchmark("thumbnail 256 px from \(format) bytes") { benchmark, photo in
            blackHole(
                try benchmark.recordRate(Rate.imagesPerSecond, amount: 1) {
                    try Image.thumbnail(from: photo.data, fittingIn: thumbnailSize).jpegData(quality: 85)
                })
        } setup: {
            try format == "JPEG" ? BenchmarkPhoto.jpeg : BenchmarkPhoto.png
        }
    }

    for tier in ["memory", "disk"] {
        Benchmark(
            "Hoard retrieve thumbnail, \(tier) hit",
            configuration: .init(scalingFactor: .kilo, maxDuration: .seconds(2))
        ) { benchmark, fixture in
            try await benchmark.recordRate(Rate.imagesPerSecond, amount: Double(benchmark.scaledIterations.count)) {
                for _ in benchmark.scaledIterations {
                    guard let thumbnail = try await fixture.hoard.retrieve(Image.self, forKey: fixture.key) else {
                        throw HoardFixture.Failure.missing(key: fixture.key)
                    }
                    blackHole(thumbnail)
                }
            }
        } setup: {
            try await HoardFixture(keepsMemoryTier: tier == "memory")
        }
    }
}

/// The longest side of the thumbnails.
let thumbnailSize = 256

/// A Hoard in a fresh folder holding the photo's thumbnail; without a memory tier (count limit 0)
/// every retrieve reads and decodes the file.
struct HoardFixture {
    enum Failure: Error {
        case missing(key: String)
    }

    let hoard: Hoard
    let key = "https://example.com/photos/1.jpg#thumbnail-256"

    init(keepsMemoryTier: Bool) async throws {
        var configuration = Hoard.Configuration(name: "bench", directory: try ScratchFolder.make("hoard"))
        configuration.memoryCountLimit = keepsMemoryTier ? 1_000 : 0
        configuration.logger.logLevel = .error
        hoard = try Hoard(configuration: configuration)
        let photo = try BenchmarkPhoto.jpeg
        try await hoard.store(Image.thumbnail(from: photo.data, fittingIn: thumbnailSize), forKey: key)
    }
}
