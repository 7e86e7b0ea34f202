extension Image {
    /// What decoding does with a file's colour description (an ICC profile, a PNG's `gAMA` and
    /// `cHRM`, an AVIF's `nclx`).
    public enum ColourHandling: String, Sendable, Hashable, CaseIterable {
        /// Convert the pixels to sRGB (the default, as `vipsthumbnail` does): what every viewer
        /// assumes of an untagged image. Files without a description are sRGB already and cost
        /// nothing extra.
        case srgb
        /// Keep the stored values and carry the profile in ``Image/colourProfile``, so that an
        /// encoded copy embeds it (JPEG, PNG and WebP). A CMYK JPEG is still converted to sRGB: an
        /// ``Image`` holds no CMYK.
        case keep
        /// Keep the stored values and drop the description: the pixels are then read as sRGB.
        case ignore
    }
}
