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
        let rgba = converted(to: .rgba8)
        let stride = width + 1
        var sums = [Int64](repeating: 0, count: stride * (height + 1))
        rgba.pixels.withUnsafeBufferPointer { pixels in
            func luminance(_ x: Int, _ y: Int) -> Int {
                let index = (y * width + x) * 4
                return (299 * Int(pixels[index]) + 587 * Int(pixels[index + 1]) + 114 * Int(pixels[index + 2])) / 1000
            }
            for y in 0..<height {
                var row: Int64 = 0
                for x in 0..<width {
                    let index = (y * width + x) * 4
                    let across = abs(luminance(min(x + 1, width - 1), y) - luminance(max(x - 1, 0), y))
                    let down = abs(luminance(x, min(y + 1, height - 1)) - luminance(x, max(y - 1, 0)))
                    let (red, green, blue) = (Int(pixels[index]), Int(pixels[index + 1]), Int(pixels[index + 2]))
                    let saturation = max(red, green, blue) - min(red, green, blue)
                    let detail = (across + down + saturation / 4) * Int(pixels[index + 3]) / 255
                    row += Int64(detail)
                    sums[(y + 1) * stride + x + 1] = sums[y * stride + x + 1] + row
                }
            }
        }
        return sums
    }
}
