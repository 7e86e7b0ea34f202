import Benchmark
import Foundation

/// The custom metrics the suites report, all rates where larger is better.
///
/// Custom metrics hold whole numbers, one per iteration; they are not scaled by the iteration's
/// scaling factor.
public enum Rate {
    /// Megapixels of the source image decoded or encoded per second (tjbench's convention, also
    /// for scaled decoding).
    public static let megapixelsPerSecond = BenchmarkMetric.custom(
        "MP/s", polarity: .prefersLarger, useScalingFactor: false)
    /// Images per second.
    public static let imagesPerSecond = BenchmarkMetric.custom(
        "images/s", polarity: .prefersLarger, useScalingFactor: false)
    /// Operations per second, for iterations that do many: the built-in throughput metric counts
    /// whole iterations per second, which rounds away all precision at a million operations each.
    public static let operationsPerSecond = BenchmarkMetric.custom(
        "ops/s", polarity: .prefersLarger, useScalingFactor: false)
    /// Cache hits per 1,000 reads.
    public static let hitsPerThousandReads = BenchmarkMetric.custom(
        "hits per 1000 reads", polarity: .prefersLarger, useScalingFactor: false)
}

extension Benchmark {
    /// Runs `body`, timing it, and records `amount` per second of it under `metric`.
    ///
    /// ```swift
    /// let image = try benchmark.recordRate(Rate.megapixelsPerSecond, amount: photo.megapixels) {
    ///     try Image(data: photo.data)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - metric: A custom metric listed in the benchmark's configuration.
    ///   - amount: How much work `body` does, in the metric's unit.
    ///   - body: The work.
    /// - Returns: What `body` returns.
    public func recordRate<Result>(
        _ metric: BenchmarkMetric, amount: Double, _ body: () throws -> Result
    ) rethrows -> Result {
        let start = ContinuousClock.now
        let result = try body()
        record(metric, amount: amount, seconds: start.duration(to: .now))
        return result
    }

    /// Runs the asynchronous `body`, timing it, and records `amount` per second of it under `metric`.
    public func recordRate<Result>(
        _ metric: BenchmarkMetric, amount: Double, _ body: () async throws -> Result
    ) async rethrows -> Result {
        let start = ContinuousClock.now
        let result = try await body()
        record(metric, amount: amount, seconds: start.duration(to: .now))
        return result
    }

    private func record(_ metric: BenchmarkMetric, amount: Double, seconds duration: Duration) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        guard seconds > 0 else { return }
        measurement(metric, Int((amount / seconds).rounded()))
    }
}
