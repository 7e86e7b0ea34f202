import Foundation
import HoardCore
import HoardSystem

/// The JPEG quality, 1...100, of the opaque ``Image`` values a cache stores (default 90,
/// ``Image/cacheJPEGQuality``); images with alpha are PNG.
public enum JPEGQuality: CachableEncodingOption {
    /// ``Image/cacheJPEGQuality``.
    public static let defaultValue = Image.cacheJPEGQuality

    /// - Throws: ``InvalidValueError`` for a quality outside 1...100.
    public static func validate(_ value: Int) throws(InvalidValueError) {
        try InvalidValueError.check(value, in: 1...100, "Hoard.Configuration.jpegQuality")
    }
}

extension CachableEncodingOptions {
    /// The JPEG quality of opaque images (``JPEGQuality``).
    public var jpegQuality: Int {
        get { self[JPEGQuality.self] }
        set { self[JPEGQuality.self] = newValue }
    }

    /// Settings with `jpegQuality`, the others at their defaults.
    public init(jpegQuality: Int) {
        self.init()
        self.jpegQuality = jpegQuality
    }
}

extension Hoard.Configuration {
    /// The JPEG quality for opaque ``Image`` values (default 90); images with alpha are PNG. Kept
    /// in ``Hoard/Configuration/encodingOptions``; a quality outside 1...100 makes the cache's
    /// initializer throw.
    public var jpegQuality: Int {
        get { encodingOptions.jpegQuality }
        set { encodingOptions.jpegQuality = newValue }
    }
}
