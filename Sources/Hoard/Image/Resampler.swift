/// Separable convolution resampling: a horizontal pass into a `Float` buffer, then a vertical pass
/// to bytes. Alpha formats are premultiplied on the way in and un-premultiplied on the way out.
struct Resampler {
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

        init(inputSize: Int, outputSize: Int, filter: Image.ResamplingFilter) {
            let scale = Double(inputSize) / Double(outputSize)
            let filterScale = max(scale, 1)
            let support = filter.support * filterScale
            let stride = Int(support.rounded(.up)) * 2 + 1
            var starts = [Int](repeating: 0, count: outputSize)
            var counts = [Int](repeating: 0, count: outputSize)
            var weights = [Float](repeating: 0, count: outputSize * stride)
            for i in 0..<outputSize {
                let center = (Double(i) + 0.5) * scale
                var low = max(0, Int((center - support + 0.5).rounded(.down)))
                var high = min(inputSize, Int((center + support + 0.5).rounded(.down)))
                high = min(high, low + stride)
                if high <= low {  // degenerate: read the nearest pixel
                    low = min(inputSize - 1, max(0, Int(center)))
                    high = low + 1
                }
                var row = [Double](repeating: 0, count: high - low)
                var total = 0.0
                for j in low..<high {
                    let w = filter.weight((Double(j) - center + 0.5) / filterScale)
                    row[j - low] = w
                    total += w
                }
                if total == 0 { row = row.map { _ in 1 }; total = Double(row.count) }
                starts[i] = low
                counts[i] = high - low
                for k in 0..<row.count { weights[i * stride + k] = Float(row[k] / total) }
            }
            self.outputSize = outputSize
            self.starts = starts
            self.counts = counts
            self.weights = weights
            self.stride = stride
        }
    }

    let source: Image
    let horizontal: Kernel
    let vertical: Kernel

    func run() -> [UInt8] {
        let channels = source.format.channelCount
        let premultiplied = source.format.hasAlpha
        let inWidth = source.width
        let inHeight = source.height
        let outWidth = horizontal.outputSize
        let outHeight = vertical.outputSize
        let rowLength = outWidth * channels

        // Pass 1: each input row, horizontally, into `intermediate` (inHeight x outWidth).
        var intermediate = [Float](repeating: 0, count: inHeight * rowLength)
        var inputRow = [Float](repeating: 0, count: inWidth * channels)
        source.pixels.withUnsafeBufferPointer { pixels in
            intermediate.withUnsafeMutableBufferPointer { middle in
                inputRow.withUnsafeMutableBufferPointer { row in
                    horizontal.weights.withUnsafeBufferPointer { weights in
                        for y in 0..<inHeight {
                            let base = y * inWidth * channels
                            for i in 0..<(inWidth * channels) { row[i] = Float(pixels[base + i]) }
                            if premultiplied { Self.premultiply(row, channels: channels) }
                            let outBase = y * rowLength
                            for x in 0..<outWidth {
                                let start = horizontal.starts[x]
                                let count = horizontal.counts[x]
                                let w = x * horizontal.stride
                                for c in 0..<channels {
                                    var sum: Float = 0
                                    for k in 0..<count { sum += weights[w + k] * row[(start + k) * channels + c] }
                                    middle[outBase + x * channels + c] = sum
                                }
                            }
                        }
                    }
                }
            }
        }

        // Pass 2: vertically, into bytes.
        return [UInt8](unsafeUninitializedCapacity: outHeight * rowLength) { out, initialized in
            var accumulator = [Float](repeating: 0, count: rowLength)
            intermediate.withUnsafeBufferPointer { middle in
                accumulator.withUnsafeMutableBufferPointer { sum in
                    vertical.weights.withUnsafeBufferPointer { weights in
                        for y in 0..<outHeight {
                            for i in 0..<rowLength { sum[i] = 0 }
                            let start = vertical.starts[y]
                            for k in 0..<vertical.counts[y] {
                                let weight = weights[y * vertical.stride + k]
                                let base = (start + k) * rowLength
                                for i in 0..<rowLength { sum[i] += weight * middle[base + i] }
                            }
                            let outBase = y * rowLength
                            if premultiplied {
                                Self.storeUnpremultiplied(sum, into: out, at: outBase, channels: channels)
                            } else {
                                for i in 0..<rowLength { out[outBase + i] = Self.byte(sum[i]) }
                            }
                        }
                    }
                }
            }
            initialized = outHeight * rowLength
        }
    }

    private static func premultiply(_ row: UnsafeMutableBufferPointer<Float>, channels: Int) {
        let alphaIndex = channels - 1
        var i = 0
        while i < row.count {
            let alpha = row[i + alphaIndex] / 255
            for c in 0..<alphaIndex { row[i + c] *= alpha }
            i += channels
        }
    }

    private static func storeUnpremultiplied(
        _ sum: UnsafeMutableBufferPointer<Float>, into out: UnsafeMutableBufferPointer<UInt8>, at base: Int,
        channels: Int
    ) {
        let alphaIndex = channels - 1
        var i = 0
        while i < sum.count {
            let alpha = min(max(sum[i + alphaIndex], 0), 255)
            let alphaByte = byte(alpha)
            out[base + i + alphaIndex] = alphaByte
            let factor: Float = alphaByte == 0 ? 0 : 255 / alpha
            for c in 0..<alphaIndex { out[base + i + c] = byte(sum[i + c] * factor) }
            i += channels
        }
    }

    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        UInt8(min(max(value + 0.5, 0), 255))
    }
}
