import Benchmark
import Foundation
import Hoard
import HoardBenchmarkSupport

// Image codecs on one photo ($HOARD_BENCH_IMAGES, see BenchmarkPhoto): JPEG decode at full size and
// at the DCT scales 1/2, 1/4, 1/8, JPEG encode at quality 90, PNG decode and encode. One iteration
// is one image; MP/s counts the source image's megapixels, as tjbench does, also when scaling.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .peakMemoryResident, Rate.megapixelsPerSecond],
        warmupIterations: 3,
        maxDuration: .seconds(1),
        maxIterations: 500)

    for denominator in [1, 2, 4, 8] {
        let name = denominator == 1 ? "JPEG decode, full size" : "JPEG decode, 1/\(denominator) scale"
        Benchmark(name) { benchmark, decoding in
            let image = try benchmark.recordRate(Rate.megapixelsPerSecond, amount: decoding.photo.megapixels) {
                try Image(data: decoding.photo.data, options: decoding.options)
            }
            blackHole(image)
        } setup: {
            try ScaledDecoding(photo: try BenchmarkPhoto.jpeg, denominator: denominator)
        }
    }

    Benchmark("JPEG encode, quality 90") { benchmark, photo in
        blackHole(
            try benchmark.recordRate(Rate.megapixelsPerSecond, amount: photo.megapixels) {
                try photo.image.jpegData(quality: 90)
            })
    } setup: {
        try BenchmarkPhoto.jpeg
    }

    Benchmark("PNG decode") { benchmark, photo in
        blackHole(
            try benchmark.recordRate(Rate.megapixelsPerSecond, amount: photo.megapixels) {
                try Image(data: photo.data, options: BenchmarkPhoto.decodingOptions)
            })
    } setup: {
        try BenchmarkPhoto.png
    }

    // About a second per photo: fewer warm-ups, a longer run.
    Benchmark(
        "PNG encode, default level", configuration: .init(warmupIterations: 1, maxDuration: .seconds(3))
    ) { benchmark, photo in
        blackHole(
            try benchmark.recordRate(Rate.megapixelsPerSecond, amount: photo.megapixels) {
                try photo.image.pngData()
            })
    } setup: {
        try BenchmarkPhoto.png
    }
}

/// A JPEG photo and the options that decode it at 1/`denominator` scale, checked once.
struct ScaledDecoding {
    enum Failure: Error {
        case unexpectedSize(denominator: Int, width: Int, height: Int)
    }

    let photo: BenchmarkPhoto
    let options: Image.DecodingOptions

    init(photo: BenchmarkPhoto, denominator: Int) throws {
        self.photo = photo
        var options = BenchmarkPhoto.decodingOptions
        let longest = max(photo.image.width, photo.image.height)
        if denominator > 1 {
            options.targetSize = (longest + denominator - 1) / denominator
        }
        self.options = options
        // libjpeg rounds scaled sizes up: the result must be exactly that, or the DCT scaling was not used.
        let scaled = try Image(data: photo.data, options: options)
        guard max(scaled.width, scaled.height) == (longest + denominator - 1) / denominator else {
            throw Failure.unexpectedSize(denominator: denominator, width: scaled.width, height: scaled.height)
        }
    }
}
