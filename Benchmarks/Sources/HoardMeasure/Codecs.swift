import Foundation
import Hoard

/// JPEG decode at 1/1, 1/2, 1/4, 1/8 and encode q90, PNG decode and encode: frames/s and source
/// MP/s, as `peers/tjbench_codec.py` (tjbench `-benchtime 3 -warmup 1`) and `pngbench.c` report them.
func measureCodecs(jpegPath: String, pngPath: String?, seconds: Double) throws {
    let jpeg = try Data(contentsOf: URL(fileURLWithPath: jpegPath))
    var options = Image.DecodingOptions()
    options.appliesOrientation = false
    options.decodeScale = .fast  // the DCT scale each row names, as tjbench -scale decodes, not twice it
    let full = try Image(data: jpeg, options: options)
    let megapixels = Double(full.width * full.height) / 1e6
    func report(_ label: String, _ rate: Double) {
        print(String(format: "%-22@ %7.1f fps %7.1f MP/s (source MP)", label, rate, rate * megapixels))
    }
    report("jpeg decode 1/1", try callsPerSecond(seconds: seconds) { _ = try Image(data: jpeg, options: options) })
    let longest = max(full.width, full.height)
    for denominator in [2, 4, 8] {
        var scaled = options
        scaled.targetSize = (longest + denominator - 1) / denominator
        report(
            "jpeg decode 1/\(denominator)",
            try callsPerSecond(seconds: seconds) { _ = try Image(data: jpeg, options: scaled) })
    }
    report("jpeg encode q90", try callsPerSecond(seconds: seconds) { _ = try full.jpegData(quality: 90) })
    if let pngPath {
        let png = try Data(contentsOf: URL(fileURLWithPath: pngPath))
        let image = try Image(data: png)
        let pngMegapixels = Double(image.width * image.height) / 1e6
        func reportPNG(_ label: String, _ rate: Double) {
            print(String(format: "%-22@ %7.1f fps %7.1f MP/s (source MP)", label, rate, rate * pngMegapixels))
        }
        reportPNG("png decode", try callsPerSecond(seconds: seconds) { _ = try Image(data: png) })
        reportPNG("png encode", try callsPerSecond(seconds: seconds) { _ = try image.pngData() })
    }
}

/// WebP decode at full size of each file: frames/s and MP/s, as `dwebp -v` times its decode
/// (RGB for an opaque file, RGBA with alpha; one thread, the data already in memory).
func measureWebPDecode(paths: [String], seconds: Double) throws {
    var options = Image.DecodingOptions()
    options.appliesOrientation = false
    for path in paths {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let image = try Image(data: data, options: options)
        let megapixels = Double(image.width * image.height) / 1e6
        let rate = try callsPerSecond(seconds: seconds) { _ = try Image(data: data, options: options) }
        let name = URL(fileURLWithPath: path).lastPathComponent
        print(String(format: "webp decode %@ %7.1f fps %7.1f MP/s (%@)", name, rate, rate * megapixels, "\(image.format)"))
    }
}
