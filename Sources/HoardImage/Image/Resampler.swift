import CHoardCodecs
import HoardCore

/// Separable convolution resampling, one output row at a time.
///
/// For each output row, the input rows under its vertical kernel are widened to `Float` (colour
/// premultiplied by alpha, when there is alpha) and kept in a ring, so that each input row is
/// widened once. Those rows are summed into one row of floats, which is filtered horizontally,
/// un-premultiplied and narrowed to bytes.
///
/// Summing vertically first keeps the widest loop a plain multiply-add over contiguous floats (in
/// C, with AVX2 and FMA where the CPU has them), whatever the pixel format, and the working set a
/// few rows: the horizontal-first version this replaced wrote and reread a whole `Float` image in
/// between, and took more than twice as long (`HoardMeasure resize`; the DocC article "Measurements
/// behind the design", "Figures behind the source's choices").
struct Resampler {
    let source: Image
    let horizontal: Kernel
    let vertical: Kernel

    func run() -> [UInt8] {
        let channels = source.format.channelCount
        let rowLength = source.width &* channels
        let outRowLength = horizontal.outputSize &* channels
        let outHeight = vertical.outputSize
        let ringSize = min(vertical.longestCount, source.height)
        // The ring of widened input rows, the vertical sums, then one filtered output row. A pixel
        // is loaded and stored as four floats, so the last two end with four spare floats.
        let scratchSize = ringSize &* rowLength &+ rowLength &+ 4 &+ outRowLength &+ 4
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: scratchSize) { scratch in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: ringSize) { ringRows in
                ringRows.initialize(repeating: -1)
                return [UInt8](unsafeUninitializedCapacity: outHeight &* outRowLength) { out, initialized in
                    guard let ring = scratch.baseAddress, let output = out.baseAddress else { return }
                    let column = ring + ringSize &* rowLength
                    let filtered = column + (rowLength &+ 4)
                    // Every float is written before it is read except the column's spare ones, which
                    // the last pixel's four-float load reads: zero those, not the whole ring (4.5 MB
                    // for a 12 MP photo resized to 256 px, each row of it widened again before use).
                    (column + rowLength).initialize(repeating: 0, count: 4)
                    source.pixels.withUnsafeBufferPointer { pixels in
                        vertical.withUnsafeTables { starts, counts, weights in
                            guard let pixels = pixels.baseAddress, let weights = weights.baseAddress else { return }
                            for y in 0..<outHeight {
                                let (start, count) = (starts[y], counts[y])
                                for row in start..<(start &+ count) where ringRows[row % ringSize] != row {
                                    widen(pixels + row &* rowLength, into: ring + (row % ringSize) &* rowLength)
                                    ringRows[row % ringSize] = row
                                }
                                Self.sum(
                                    rows: start..<(start &+ count), of: ring, ringSize: ringSize, length: rowLength,
                                    weights: weights + y &* vertical.stride, into: column)
                                filterHorizontally(column, into: filtered)
                                narrow(filtered, into: output + y &* outRowLength)
                            }
                        }
                    }
                    initialized = outHeight &* outRowLength
                }
            }
        }
    }

    /// One input row as floats, colour multiplied by alpha / 255 when the format has alpha.
    @inline(__always)
    private func widen(_ bytes: UnsafePointer<UInt8>, into row: UnsafeMutablePointer<Float>) {
        let channels = source.format.channelCount
        for i in 0..<(source.width &* channels) { row[i] = Float(bytes[i]) }
        guard source.format.hasAlpha else { return }
        let alphaLane = channels &- 1
        for x in 0..<source.width {
            let pixel = row + x &* channels
            let coverage = pixel[alphaLane] / 255
            for c in 0..<alphaLane { pixel[c] *= coverage }
        }
    }

    /// `column[i] = Σ weights[k] * row(k)[i]` over the ring's rows `rows`, in C
    /// (`hoard_weighted_row_sum`: a block of the column summed in registers over every row, with
    /// AVX2 and FMA where the CPU has them).
    @inline(__always)
    private static func sum(
        rows: Range<Int>, of ring: UnsafeMutablePointer<Float>, ringSize: Int, length: Int,
        weights: UnsafePointer<Float>, into column: UnsafeMutablePointer<Float>
    ) {
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: rows.count) { pointers in
            for (k, row) in rows.enumerated() {
                pointers[k] = UnsafePointer(ring + (row % ringSize) &* length)
            }
            hoard_weighted_row_sum(column, pointers.baseAddress, weights, rows.count, length)
        }
    }

    /// Filters one row of vertical sums horizontally. Each pixel is one unaligned four-float load
    /// whatever its channel count; the lanes past its channels carry a neighbour's values, which
    /// the next pixel's store (or the row's spare floats) overwrites.
    @inline(__always)
    private func filterHorizontally(_ column: UnsafeMutablePointer<Float>, into filtered: UnsafeMutablePointer<Float>) {
        let pixelBytes = source.format.channelCount &* MemoryLayout<Float>.stride
        let sums = UnsafeRawPointer(column)
        let target = UnsafeMutableRawPointer(filtered)
        horizontal.withUnsafeTables { starts, counts, weights in
            guard let weightBase = weights.baseAddress else { return }
            for x in 0..<horizontal.outputSize {
                let weights = weightBase + x &* horizontal.stride
                let first = starts[x] &* pixelBytes
                let count = counts[x]
                // Two accumulators: each add would wait on the previous one otherwise.
                var (even, odd) = (SIMD4<Float>.zero, SIMD4<Float>.zero)
                var k = 0
                while k &+ 1 < count {
                    let offset = first &+ k &* pixelBytes
                    even += weights[k] * sums.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
                    odd +=
                        weights[k &+ 1]
                        * sums.loadUnaligned(fromByteOffset: offset &+ pixelBytes, as: SIMD4<Float>.self)
                    k &+= 2
                }
                if k < count {
                    even +=
                        weights[k] * sums.loadUnaligned(fromByteOffset: first &+ k &* pixelBytes, as: SIMD4<Float>.self)
                }
                target.storeBytes(of: even + odd, toByteOffset: x &* pixelBytes, as: SIMD4<Float>.self)
            }
        }
    }

    /// Rounds and clamps one filtered row into bytes, dividing colour by alpha again first when
    /// the format has alpha.
    @inline(__always)
    private func narrow(_ filtered: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<UInt8>) {
        let channels = source.format.channelCount
        if source.format.hasAlpha {
            let alphaLane = channels &- 1
            for x in 0..<horizontal.outputSize {
                let pixel = filtered + x &* channels
                let alpha = min(max(pixel[alphaLane], 0), 255)
                let alphaByte = (alpha + 0.5).rounded(.down)
                let scale: Float = alphaByte == 0 ? 0 : 255 / alpha
                for c in 0..<alphaLane { pixel[c] *= scale }
                pixel[alphaLane] = alphaByte
            }
        }
        // Adding 2^23 to a float in 0...255 rounds it to the nearest integer (ties to even) and
        // leaves that integer in the low mantissa bits: a loop the compiler vectorises, where
        // `UInt8(Float)` would check and convert each value on its own.
        for i in 0..<(horizontal.outputSize &* channels) {
            let clamped = min(max(filtered[i], 0), 255)
            out[i] = UInt8(truncatingIfNeeded: (clamped + 8_388_608).bitPattern)
        }
    }
}
