import HoardCore
import HoardSystem

extension Image {
    /// This image placed at (`x`, `y`) on a `width` × `height` canvas of `colour` (red, green,
    /// blue), or transparent when `colour` is `nil`; the canvas has this image's colour profile.
    ///
    /// ```swift
    /// let letterboxed = try photo.placed(onWidth: 300, height: 300, x: 0, y: 75, colour: (0, 0, 0))
    /// ```
    ///
    /// - Returns: An ``PixelFormat/rgba8`` image for a transparent canvas or an image with
    ///   alpha, else ``PixelFormat/rgb8``.
    /// - Throws: ``ImageError/invalidValue(_:)`` when the image does not lie inside the canvas.
    /// - Complexity: O(`width` × `height`).
    public func placed(
        onWidth width: Int, height: Int, x: Int, y: Int, colour: (red: UInt8, green: UInt8, blue: UInt8)?
    ) throws(ImageError) -> Image {
        guard x >= 0, y >= 0, x <= width - self.width, y <= height - self.height else {
            throw .invalidValue(
                InvalidValueError(
                    field: "canvas", value: "\(self.width)x\(self.height) at (\(x), \(y))",
                    requirement: "inside \(width)x\(height)"))
        }
        let target: PixelFormat = colour == nil || hasAlpha ? .rgba8 : .rgb8
        let source = converted(to: target)
        let channels = target.channelCount
        let fill: [UInt8] = colour.map { [$0.red, $0.green, $0.blue, 255] } ?? [0, 0, 0, 0]
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        if fill.contains(where: { $0 != 0 }) {
            for index in 0..<(width * height) {
                for channel in 0..<channels { pixels[index * channels + channel] = fill[channel] }
            }
        }
        let rowBytes = self.width * channels
        source.pixels.withUnsafeBufferPointer { input in
            pixels.withUnsafeMutableBufferPointer { output in
                for row in 0..<self.height {
                    let from = row * rowBytes
                    let to = ((y + row) * width + x) * channels
                    for offset in 0..<rowBytes { output[to + offset] = input[from + offset] }
                }
            }
        }
        return Image(unchecked: width, height: height, format: target, pixels: pixels, colourProfile: colourProfile)
    }

    /// Composites the image onto an opaque colour and drops alpha (``flattened(onto:)`` for a
    /// colour).
    ///
    /// - Returns: `self` when there is no alpha, else an ``PixelFormat/rgb8`` image.
    /// - Complexity: O(pixels).
    public func flattened(onto colour: (red: UInt8, green: UInt8, blue: UInt8)) -> Image {
        guard hasAlpha else { return self }
        let source = converted(to: .rgba8)
        let background = [UInt32(colour.red), UInt32(colour.green), UInt32(colour.blue)]
        let count = width * height
        var output = [UInt8](repeating: 0, count: count * 3)
        source.pixels.withUnsafeBufferPointer { input in
            for index in 0..<count {
                let alpha = UInt32(input[index * 4 + 3])
                for channel in 0..<3 {
                    let value = UInt32(input[index * 4 + channel])
                    output[index * 3 + channel] = UInt8((value * alpha + background[channel] * (255 - alpha) + 127) / 255)
                }
            }
        }
        return Image(unchecked: width, height: height, format: .rgb8, pixels: output, colourProfile: colourProfile)
    }
}
