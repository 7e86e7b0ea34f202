import Foundation
import HoardImage

/// What `/info` answers about a source: its size once upright, format, bytes, EXIF orientation,
/// whether it has transparency, its colour profile's description, and a ThumbHash a page can draw
/// while the image loads; as JSON with sorted keys, so that one source always gives the same bytes.
///
/// ```json
/// {"alpha":false,"bytes":48213,"colourProfile":"Display P3","format":"jpeg","height":600,
///  "orientation":1,"thumbhash":"nggKNZhwd3eAiIh3iHiIiHCAB/eI","width":800}
/// ```
struct SourceInfo: Codable, Equatable {
    /// The box the ThumbHash and the transparency are read from (the format's limit).
    static let hashBox = 100

    let width: Int
    let height: Int
    /// `jpeg`, `png`, `webp`, `gif` or `avif`.
    let format: String
    let bytes: Int
    /// The EXIF orientation, 1 (upright) to 8.
    let orientation: Int
    /// Whether some pixel is not opaque.
    let alpha: Bool
    /// The embedded profile's description; `nil` for none (sRGB).
    let colourProfile: String?
    /// The ThumbHash, in standard Base64.
    let thumbhash: String

    /// The facts of `original`, refusing one that declares more than `maximumPixels` before decoding.
    ///
    /// - Throws: ``ServeError``: `notAnImage`, `sourceTooLarge`, `badImage`.
    init(of original: Data, maximumPixels: Int) throws(ServeError) {
        guard let format = ImageFormat(sniffing: original), let size = Image.uprightSize(of: original) else {
            throw .notAnImage("the source is not a PNG, JPEG, WebP, GIF or AVIF image")
        }
        let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
        guard !overflow, pixels <= maximumPixels else {
            throw .sourceTooLarge("\(size.width)x\(size.height) is more than the limit of \(maximumPixels) pixels")
        }
        var options = Image.DecodingOptions()
        options.maximumPixelCount = maximumPixels
        options.colour = .keep
        do {
            let (small, warnings) = try Image.thumbnailReportingWarnings(from: original, fittingIn: Self.hashBox, options: options)
            if warnings.contains(Image.truncationWarning) { throw ServeError.badImage("the image is cut short") }
            width = size.width
            height = size.height
            self.format = format.rawValue
            bytes = original.count
            orientation = (Image.orientation(of: original) ?? .up).rawValue
            alpha = !small.isOpaque
            colourProfile = small.colourProfile?.description
            thumbhash = Data(try small.convertedToSRGB().thumbHash()).base64EncodedString()
        } catch let error as ServeError {
            throw error
        } catch {
            throw .badImage("\(error)")
        }
    }

    /// The JSON, keys sorted.
    func json() throws(ServeError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return try encoder.encode(self)
        } catch {
            throw .internalError("\(error)")
        }
    }
}
