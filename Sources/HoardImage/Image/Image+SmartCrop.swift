extension Image {
    /// Where a `width` × `height` crop keeps the most detail: the window whose pixels add up to
    /// the largest sum of edge strength (the luminance's central differences across and down)
    /// and a quarter of their saturation, each weighted by its alpha, as libvips's and imgproxy's
    /// smart crop look for the interesting part of an image. Of equal windows, the one nearest
    /// the centre; the same image always gives the same window.
    ///
    /// ```swift
    /// let (x, y) = photo.smartCropOrigin(width: 256, height: 256)
    /// let square = try photo.cropped(x: x, y: y, width: 256, height: 256)
    /// ```
    ///
    /// - Returns: The window's top left corner, inside the image (the origin when the window is
    ///   not smaller than the image in either direction).
    /// - Complexity: O(pixels + positions), positions being `(self.width - width + 1) × (self.height - height + 1)`.
    public func smartCropOrigin(width: Int, height: Int) -> (x: Int, y: Int) {
        let cropWidth = min(max(1, width), self.width)
        let cropHeight = min(max(1, height), self.height)
        let spareX = self.width - cropWidth
        let spareY = self.height - cropHeight
        guard spareX > 0 || spareY > 0 else { return (0, 0) }
        let sums = detailSums()
        let stride = self.width + 1
        var best = (x: spareX / 2, y: spareY / 2)
        var bestSum = Int64.min
        var bestDistance = Int.max
        for y in 0...spareY {
            for x in 0...spareX {
                let sum =
                    sums[(y + cropHeight) * stride + x + cropWidth] - sums[y * stride + x + cropWidth]
                    - sums[(y + cropHeight) * stride + x] + sums[y * stride + x]
                let distance = abs(2 * x - spareX) + abs(2 * y - spareY)
                if sum > bestSum || (sum == bestSum && distance < bestDistance) {
                    best = (x, y)
                    bestSum = sum
                    bestDistance = distance
                }
            }
        }
        return best
    }

    /// The summed-area table of each pixel's detail, `(width + 1) × (height + 1)` entries, a row and
    /// a column of zeros first.
    private func detailSums() -> [Int64] {
        let channels = format.channelCount
        let isColour = format.isColor
        let alphaOffset = hasAlpha ? channels - 1 : -1
        let count = width * height
        var luma = [Int32](repeating: 0, count: count)
        var extra = [Int32](repeating: 0, count: count)  // a quarter of the saturation
        var coverage = [Int32](repeating: 255, count: count)
        pixels.withUnsafeBufferPointer { pixels in
            for index in 0..<count {
                let base = index * channels
                if isColour {
                    let (red, green, blue) = (Int32(pixels[base]), Int32(pixels[base + 1]), Int32(pixels[base + 2]))
                    luma[index] = (299 * red + 587 * green + 114 * blue) / 1000
                    extra[index] = (max(red, green, blue) - min(red, green, blue)) / 4
                } else {
                    luma[index] = Int32(pixels[base])
                }
                if alphaOffset >= 0 { coverage[index] = Int32(pixels[base + alphaOffset]) }
            }
        }
        let stride = width + 1
        var sums = [Int64](repeating: 0, count: stride * (height + 1))
        for y in 0..<height {
            let row = y * width
            let above = (y > 0 ? y - 1 : 0) * width
            let below = (y + 1 < height ? y + 1 : y) * width
            var running: Int64 = 0
            for x in 0..<width {
                let across = abs(luma[row + min(x + 1, width - 1)] - luma[row + max(x - 1, 0)])
                let down = abs(luma[below + x] - luma[above + x])
                let detail = (across + down + extra[row + x]) * coverage[row + x] / 255
                running += Int64(detail)
                sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] + running
            }
        }
        return sums
    }
}
