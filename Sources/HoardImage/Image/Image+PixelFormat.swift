import HoardCore

extension Image {
    /// The channel layout of a pixel. Every channel is one byte.
    public enum PixelFormat: Sendable, Hashable, CaseIterable {
        /// One luminance byte.
        case gray8
        /// Luminance, then alpha (straight, not premultiplied).
        case grayAlpha8
        /// Red, green, blue.
        case rgb8
        /// Red, green, blue, then alpha (straight, not premultiplied).
        case rgba8

        /// The number of bytes per pixel.
        public var channelCount: Int {
            switch self {
            case .gray8: 1
            case .grayAlpha8: 2
            case .rgb8: 3
            case .rgba8: 4
            }
        }

        /// Whether the last channel is alpha.
        public var hasAlpha: Bool { self == .grayAlpha8 || self == .rgba8 }

        /// Whether the colour channels are red, green and blue (as opposed to one gray channel).
        public var isColor: Bool { self == .rgb8 || self == .rgba8 }

        /// The layout with `channelCount` channels, as the C codecs report it.
        init?(channelCount: Int) {
            switch channelCount {
            case 1: self = .gray8
            case 2: self = .grayAlpha8
            case 3: self = .rgb8
            case 4: self = .rgba8
            default: return nil
            }
        }
    }
}
