import Foundation
import HoardCore

extension Image {
    /// The largest blur or sharpen sigma, in pixels.
    public static let maximumFilterSigma = 100.0

    /// The image blurred by a Gaussian of standard deviation `sigma` pixels (imgproxy's `blur`),
    /// each channel alike, alpha premultiplied while blurring so that transparent pixels lend no
    /// colour; edges extended.
    ///
    /// ```swift
    /// let soft = try thumbnail.blurred(sigma: 2)
    /// ```
    ///
    /// - Throws: ``ImageError/invalidValue(_:)`` for a sigma that is not above 0 and at most
    ///   ``maximumFilterSigma``.
    /// - Complexity: O(pixels × sigma).
    public func blurred(sigma: Double) throws(ImageError) -> Image {
        try Self.checkSigma(sigma)
        let (planes, alpha) = floatPlanes()
        let blurredAlpha = alpha.map { Self.gaussian($0, width: width, height: height, sigma: sigma) }
        let blurred = planes.map { Self.gaussian($0, width: width, height: height, sigma: sigma) }
        return image(from: blurred, alpha: blurredAlpha)
    }

    /// The image sharpened by an unsharp mask of a Gaussian of `sigma` pixels (imgproxy's
    /// `sharpen`): each colour channel plus its difference from its blur; alpha unchanged.
    ///
    /// ```swift
    /// let crisp = try thumbnail.sharpened(sigma: 0.5)
    /// ```
    ///
    /// - Throws: ``ImageError/invalidValue(_:)`` for a sigma that is not above 0 and at most
    ///   ``maximumFilterSigma``.
    /// - Complexity: O(pixels × sigma).
    public func sharpened(sigma: Double) throws(ImageError) -> Image {
        try Self.checkSigma(sigma)
        let (planes, alpha) = floatPlanes()
        let sharpened = planes.map { plane in
            let blur = Self.gaussian(plane, width: width, height: height, sigma: sigma)
            return zip(plane, blur).map { 2 * $0 - $1 }
        }
        return image(from: sharpened, alpha: alpha)
    }

    // MARK: - Private

    private static func checkSigma(_ sigma: Double) throws(ImageError) {
        guard sigma.isFinite, sigma > 0, sigma <= maximumFilterSigma else {
            throw .invalidValue(
                InvalidValueError(field: "sigma", value: "\(sigma)", requirement: "above 0 and at most \(maximumFilterSigma)"))
        }
    }

    /// The colour channels as planes of floats (premultiplied when there is alpha), and alpha (0-1).
    private func floatPlanes() -> (colour: [[Float]], alpha: [Float]?) {
        let channels = format.channelCount
        let colourCount = hasAlpha ? channels - 1 : channels
        let count = width * height
        var alpha: [Float]?
        if hasAlpha {
            alpha = (0..<count).map { Float(pixels[$0 * channels + colourCount]) / 255 }
        }
        let planes = (0..<colourCount).map { channel in
            (0..<count).map { index in
                Float(pixels[index * channels + channel]) * (alpha?[index] ?? 1)
            }
        }
        return (planes, alpha)
    }

    /// An image of this one's size, format and profile from colour planes (premultiplied when
    /// there is alpha) and alpha.
    private func image(from planes: [[Float]], alpha: [Float]?) -> Image {
        let channels = format.channelCount
        let count = width * height
        var output = [UInt8](repeating: 0, count: count * channels)
        for index in 0..<count {
            let coverage = alpha?[index] ?? 1
            for (channel, plane) in planes.enumerated() {
                let value = coverage > 0 ? plane[index] / coverage : 0
                output[index * channels + channel] = UInt8(max(0, min(255, value.rounded())))
            }
            if let alpha { output[index * channels + planes.count] = UInt8(max(0, min(255, (alpha[index] * 255).rounded()))) }
        }
        return Image(unchecked: width, height: height, format: format, pixels: output, colourProfile: colourProfile)
    }

    /// `plane` convolved with a normalised Gaussian across, then down; edges extended.
    private static func gaussian(_ plane: [Float], width: Int, height: Int, sigma: Double) -> [Float] {
        let radius = max(1, Int((3 * sigma).rounded(.up)))
        var kernel: [Float] = (-radius...radius).map { offset in
            let distance = Double(offset * offset)
            return Float(exp(-distance / (2 * sigma * sigma)))
        }
        let total = kernel.reduce(0, +)
        kernel = kernel.map { $0 / total }
        var across = [Float](repeating: 0, count: plane.count)
        for y in 0..<height {
            let row = y * width
            for x in 0..<width {
                var sum: Float = 0
                for (offset, weight) in kernel.enumerated() {
                    sum += weight * plane[row + min(max(x + offset - radius, 0), width - 1)]
                }
                across[row + x] = sum
            }
        }
        var down = [Float](repeating: 0, count: plane.count)
        for y in 0..<height {
            for x in 0..<width {
                var sum: Float = 0
                for (offset, weight) in kernel.enumerated() {
                    sum += weight * across[min(max(y + offset - radius, 0), height - 1) * width + x]
                }
                down[y * width + x] = sum
            }
        }
        return down
    }
}
