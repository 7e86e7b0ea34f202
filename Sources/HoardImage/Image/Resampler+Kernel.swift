import HoardCore

extension Resampler {
    /// For one axis: which input pixels each output pixel reads, and with which normalised weights.
    struct Kernel {
        let outputSize: Int
        /// The first input index for each output index.
        let starts: [Int]
        /// How many input pixels each output index reads.
        let counts: [Int]
        /// `outputSize * stride` weights; row `i` holds `counts[i]` weights then zeros.
        let weights: [Float]
        let stride: Int
        /// The largest of `counts`: how many input rows one output row reads at most.
        let longestCount: Int

        init(inputSize: Int, outputSize: Int, filter: Image.ResamplingFilter) {
            let scale = Double(inputSize) / Double(outputSize)
            let filterScale = max(scale, 1)
            let support = filter.support * filterScale
            let stride = Int(support.rounded(.up)) * 2 + 1
            var starts = [Int](repeating: 0, count: outputSize)
            var counts = [Int](repeating: 0, count: outputSize)
            var weights = [Float](repeating: 0, count: outputSize * stride)
            var row = [Double](repeating: 0, count: stride)  // one output's weights, before normalising
            for i in 0..<outputSize {
                let center = (Double(i) + 0.5) * scale
                var low = max(0, Int((center - support + 0.5).rounded(.down)))
                var high = min(inputSize, Int((center + support + 0.5).rounded(.down)))
                high = min(high, low + stride)
                if high <= low {  // degenerate: read the nearest pixel
                    low = min(inputSize - 1, max(0, Int(center)))
                    high = low + 1
                }
                let count = high - low
                var total = 0.0
                for k in 0..<count {
                    let w = filter.weight((Double(low + k) - center + 0.5) / filterScale)
                    row[k] = w
                    total += w
                }
                if total == 0 {
                    for k in 0..<count { row[k] = 1 }
                    total = Double(count)
                }
                starts[i] = low
                counts[i] = count
                for k in 0..<count { weights[i * stride + k] = Float(row[k] / total) }
            }
            self.outputSize = outputSize
            self.starts = starts
            self.counts = counts
            self.weights = weights
            self.stride = stride
            self.longestCount = counts.max() ?? 1
        }

        /// Calls `body` with the kernel's tables as buffers (no bounds checks in the inner loops).
        @inline(__always)
        func withUnsafeTables<R>(
            _ body: (UnsafeBufferPointer<Int>, UnsafeBufferPointer<Int>, UnsafeBufferPointer<Float>) -> R
        ) -> R {
            starts.withUnsafeBufferPointer { starts in
                counts.withUnsafeBufferPointer { counts in
                    weights.withUnsafeBufferPointer { weights in body(starts, counts, weights) }
                }
            }
        }
    }
}
