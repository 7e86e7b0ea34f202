import HoardCore
import HoardSystem

extension Image {
    /// The rectangle of this image from (`x`, `y`), `width` × `height` pixels, with the same pixel
    /// format and colour profile.
    ///
    /// ```swift
    /// let centre = try photo.cropped(x: 100, y: 50, width: 200, height: 200)
    /// ```
    ///
    /// - Throws: ``ImageError/invalidValue(_:)`` when the rectangle is empty or not inside the image.
    /// - Complexity: O(`width` × `height`).
    public func cropped(x: Int, y: Int, width: Int, height: Int) throws(ImageError) -> Image {
        guard x >= 0, y >= 0, width >= 1, height >= 1, x <= self.width - width, y <= self.height - height else {
            throw .invalidValue(
                InvalidValueError(
                    field: "crop", value: "\(width)x\(height) at (\(x), \(y))",
                    requirement: "a non-empty rectangle inside \(self.width)x\(self.height)"))
        }
        if x == 0, y == 0, width == self.width, height == self.height { return self }
        let channels = format.channelCount
        var cropped = [UInt8]()
        cropped.reserveCapacity(width * height * channels)
        for row in y..<(y + height) {
            let start = (row * self.width + x) * channels
            cropped.append(contentsOf: pixels[start..<(start + width * channels)])
        }
        return Image(unchecked: width, height: height, format: format, pixels: cropped, colourProfile: colourProfile)
    }
}
