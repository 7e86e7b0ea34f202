/// Why the benchmarks have no photo to work on.
public enum BenchmarkPhotoError: Error, CustomStringConvertible {
    /// Neither a JPEG nor a PNG file was found at or under `path`.
    case noPhoto(path: String)

    public var description: String {
        switch self {
        case .noPhoto(let path):
            "No .jpg or .png photo at \(path) (set \(BenchmarkPhoto.environmentVariable) to a photo or a folder of photos)"
        }
    }
}
