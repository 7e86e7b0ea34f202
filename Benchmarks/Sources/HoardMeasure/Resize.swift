import Foundation
import Hoard

/// The two steps of a thumbnail after the file is read, timed apart: the JPEG decode with DCT
/// scaling to a target size, and the resize of that decoded image to 256 px with the Catmull-Rom
/// and Lanczos-3 filters. For targets 256 (the scale `hoard thumbnails --size 256` decodes at) and
/// 512 (one step larger). Microseconds per call.
func measureResize(jpegPath: String, seconds: Double) throws {
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: jpegPath))
    for target in [256, 512] {
        var options = Image.DecodingOptions()
        options.targetSize = target
        let image = try Image(data: jpeg, options: options)
        let decode = try callsPerSecond(seconds: seconds) { _ = try Image(data: jpeg, options: options) }
        print(String(format: "decode to %4dx%-4d             %7.0f us", image.width, image.height, 1e6 / decode))
        for filter in [Image.ResamplingFilter.catmullRom, .lanczos3] {
            let rate = try callsPerSecond(seconds: seconds) { _ = try image.resized(toFit: 256, filter: filter) }
            print(
                String(
                    format: "resize %4dx%-4d -> 256 %-10@ %7.0f us", image.width, image.height, "\(filter)",
                    1e6 / rate))
        }
    }
}
