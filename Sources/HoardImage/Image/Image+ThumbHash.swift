import Foundation
import HoardCore

extension Image {
    /// The image's ThumbHash (Evan Wallace's placeholder format, https://evanw.github.io/thumbhash/):
    /// a few dozen bytes from which a page draws a blurred preview with the image's colours,
    /// transparency and proportions while the image loads. Made from the image scaled to fit
    /// 100 × 100 (as the format requires), colours as stored (sRGB for a decoded thumbnail).
    ///
    /// ```swift
    /// let placeholder = try photo.thumbHash()   // 20-25 bytes
    /// let text = Data(placeholder).base64EncodedString()
    /// ```
    ///
    /// - Throws: ``ImageError`` when scaling fails.
    /// - Complexity: O(pixels) to scale, then O(100² × 40) at most.
    public func thumbHash() throws(ImageError) -> [UInt8] {
        let small = width > 100 || height > 100 ? try resized(toFit: 100) : self
        return Self.thumbHash(of: small.converted(to: .rgba8))
    }

    /// The hash of an RGBA image of at most 100 × 100 pixels.
    private static func thumbHash(of image: Image) -> [UInt8] {
        let (w, h) = (image.width, image.height)
        let count = w * h
        let pixels = image.pixels
        // The average colour, weighted by alpha.
        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for i in 0..<count {
            let alpha = Double(pixels[i * 4 + 3]) / 255
            average.r += alpha / 255 * Double(pixels[i * 4])
            average.g += alpha / 255 * Double(pixels[i * 4 + 1])
            average.b += alpha / 255 * Double(pixels[i * 4 + 2])
            average.a += alpha
        }
        if average.a > 0 {
            average.r /= average.a
            average.g /= average.a
            average.b /= average.a
        }
        let hasAlpha = average.a < Double(count)
        let limit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, Int((limit * Double(w) / longest).rounded()))
        let ly = max(1, Int((limit * Double(h) / longest).rounded()))
        // Luminance, yellow-blue, red-green and alpha planes, transparent pixels over the average.
        var l = [Double](repeating: 0, count: count)
        var p = l
        var q = l
        var a = l
        for i in 0..<count {
            let alpha = Double(pixels[i * 4 + 3]) / 255
            let r = average.r * (1 - alpha) + alpha / 255 * Double(pixels[i * 4])
            let g = average.g * (1 - alpha) + alpha / 255 * Double(pixels[i * 4 + 1])
            let b = average.b * (1 - alpha) + alpha / 255 * Double(pixels[i * 4 + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        let luminance = encode(l, w, h, max(3, lx), max(3, ly))
        let yellowBlue = encode(p, w, h, 3, 3)
        let redGreen = encode(q, w, h, 3, 3)
        let transparency = hasAlpha ? encode(a, w, h, 5, 5) : nil
        let isLandscape = w > h
        let header24 =
            Int((63 * luminance.dc).rounded()) | Int((31.5 + 31.5 * yellowBlue.dc).rounded()) << 6
            | Int((31.5 + 31.5 * redGreen.dc).rounded()) << 12 | Int((31 * luminance.scale).rounded()) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 =
            (isLandscape ? ly : lx) | Int((63 * yellowBlue.scale).rounded()) << 3
            | Int((63 * redGreen.scale).rounded()) << 9 | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [
            UInt8(header24 & 255), UInt8(header24 >> 8 & 255), UInt8(header24 >> 16 & 255), UInt8(header16 & 255),
            UInt8(header16 >> 8 & 255),
        ]
        if let transparency {
            hash.append(UInt8(Int((15 * transparency.dc).rounded()) | Int((15 * transparency.scale).rounded()) << 4))
        }
        let start = hash.count
        var index = 0
        for coefficients in [luminance.ac, yellowBlue.ac, redGreen.ac, transparency?.ac ?? []] {
            for value in coefficients {
                if start + index / 2 >= hash.count { hash.append(0) }
                hash[start + index / 2] |= UInt8(Int((15 * value).rounded())) << ((index & 1) * 4)
                index += 1
            }
        }
        return hash
    }

    /// One plane's DCT: its DC term, its AC terms (the triangle `cx * ny < nx * (ny - cy)`)
    /// normalised to 0-1, and their scale.
    private static func encode(_ plane: [Double], _ w: Int, _ h: Int, _ nx: Int, _ ny: Int)
        -> (dc: Double, ac: [Double], scale: Double)
    {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0
        var fx = [Double](repeating: 0, count: w)
        for cy in 0..<ny {
            var cx = 0
            while cx * ny < nx * (ny - cy) {
                for x in 0..<w { fx[x] = cos(Double.pi / Double(w) * Double(cx) * (Double(x) + 0.5)) }
                var f = 0.0
                for y in 0..<h {
                    let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                    for x in 0..<w { f += plane[x + y * w] * fx[x] * fy }
                }
                f /= Double(w * h)
                if cx > 0 || cy > 0 {
                    ac.append(f)
                    scale = max(scale, abs(f))
                } else {
                    dc = f
                }
                cx += 1
            }
        }
        if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        return (dc, ac, scale)
    }
}
