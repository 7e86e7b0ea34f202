import Foundation
import Hoard

/// How much the process grows while it makes one thumbnail: `Data(contentsOf:)`,
/// `Image.thumbnail(from:fittingIn:)` and `jpegData(quality:)`, with nothing else in flight.
///
/// The peak (`VmHWM` in `/proc/self/status`) is first reset to the current resident size by
/// writing 5 to `/proc/self/clear_refs` (Linux 4.0+), so that start-up allocations do not count;
/// the growth is the peak after the thumbnail minus the resident size before it. The image is
/// decoded once more afterwards, only to learn its size.
func measurePeakMemory(jpegPath: String, box: Int, quality: Int) throws {
    let peakWasReset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
    let residentBefore = try ProcessStatus.kibibytes("VmRSS")
    let data = try Data(contentsOf: URL(fileURLWithPath: jpegPath))
    let thumbnail = try Image.thumbnail(from: data, fittingIn: box)
    let encoded = try thumbnail.jpegData(quality: quality)
    let peak = try ProcessStatus.kibibytes("VmHWM")

    var options = Image.DecodingOptions()
    options.appliesOrientation = false
    let full = try Image(data: data, options: options)
    let rasterBytes = full.width * full.height * 4
    let growthBytes = (peak - residentBefore) * 1024
    print(
        String(
            format:
                "peak %dx%d -> %dx%d (%d B JPEG q%d): resident before %d KiB, peak %d KiB, growth %d KiB"
                + " = %.3f of the %d-byte RGBA raster (peak reset: %@)",
            full.width, full.height, thumbnail.width, thumbnail.height, encoded.count, quality, residentBefore,
            peak, peak - residentBefore, Double(growthBytes) / Double(rasterBytes), rasterBytes,
            peakWasReset ? "yes" : "no"))
}

/// Fields of `/proc/self/status`.
enum ProcessStatus {
    struct MissingField: Error, CustomStringConvertible {
        var name: String
        var description: String { "no \(name) line in /proc/self/status" }
    }

    /// The value of a `kB` field such as `VmRSS` or `VmHWM`, in KiB.
    static func kibibytes(_ name: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if fields.count >= 2, let value = Int(fields[1]) { return value }
        }
        throw MissingField(name: name)
    }
}
