import ArgumentParser
import Foundation
import HoardServer

/// `hoard url`: the signed path `hoard serve` answers for a source and options, signed with the
/// same `HOARD_SERVE_KEY` and `HOARD_SERVE_SALT` (as thumbor's `thumbor-url`).
struct URLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Print the signed path hoard serve answers for a source and options.",
        discussion: """
            Signs with the first key and salt of HOARD_SERVE_KEY and HOARD_SERVE_SALT (hex; several \
            pairs separated by commas), as hoard serve verifies. With --unsigned, prints the /unsafe/ \
            path instead (served only when hoard serve allows unsigned URLs).

              hoard url https://images.example/a.jpg --width 256 --format webp
            """)

    @Argument(help: "An http(s) URL, or local:///path for a file under the server's --root.")
    var source: String
    @Option(help: "The box's width in CSS pixels.") var width: Int
    @Option(help: "The box's height in CSS pixels (default: the width, a square box).") var height: Int?
    @Option(
        help: "fit (inside the box), fill (cover it, then crop to its proportions), force (stretch to it), or auto (fill when source and box are both portrait or both landscape).")
    var fit: String = "fit"
    @Option(help: "What fill keeps: center, north, south, east, west, ne, nw, se, sw.") var gravity: String = "center"
    @Option(help: "Device pixel ratio, 1 to 4.") var dpr: Double = 1
    @Option(help: "auto, jpeg, png or webp.") var format: String = "auto"
    @Option(help: "JPEG and WebP quality, 1 to 100 (default 85).") var quality: Int?
    @Flag(help: "Print the unsigned /unsafe/ path; no key needed.") var unsigned = false

    func run() throws {
        do {
            var options = ProcessingOptions(width: width, height: height)
            // Hoard's fill keeps the box's proportions for a small source: imgproxy's fill-down.
            let resizing: ProcessingOptions.Fit = try Self.choice(fit, "--fit")
            options.fit = resizing == .fill ? .fillDown : resizing
            options.gravity = try Self.choice(gravity, "--gravity")
            options.format = try Self.choice(format, "--format")
            options.pixelRatio = dpr
            options.quality = quality
            let part = try ImagePath.signedPart(options: options, source: ImageSource(parsing: Self.asciiOnly(source)))
            if unsigned {
                print("/" + ImagePath.unsignedMarker + part)
                return
            }
            let environment = ProcessInfo.processInfo.environment
            guard let keys = environment[URLSigner.keyVariable], let salts = environment[URLSigner.saltVariable] else {
                throw ValidationError(
                    "set \(URLSigner.keyVariable) and \(URLSigner.saltVariable) (hex), or pass --unsigned")
            }
            print(try URLSigner(keys: keys, salts: salts).signedPath(part))
        } catch let error as ServeError {
            throw Self.usageFailure(error.reason)
        } catch let error as ValidationError {
            throw Self.usageFailure(error.message)
        }
    }

    /// Says what is wrong, without the whole tool's usage after it, and exits with 64 (`EX_USAGE`).
    private static func usageFailure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return ExitCode.validationFailure
    }

    /// `text` with spaces, control characters and every byte outside ASCII percent-encoded, so
    /// that `https://a.example/ü.jpg` and `local:///a photo.jpg` work as typed.
    private static func asciiOnly(_ text: String) -> String {
        text.utf8.map { (0x21..<0x7F).contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
    }

    private static func choice<T: RawRepresentable & CaseIterable>(_ value: String, _ option: String) throws -> T
    where T.RawValue == String {
        guard let choice = T(rawValue: value) else {
            throw ValidationError("\(option): \(value) is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }
}
