extension Image {
    /// The image with its pixels converted from ``colourProfile`` to sRGB, and no profile: what a
    /// viewer that assumes sRGB shows correctly. `self` when there is no profile; the pixels
    /// unchanged when the profile is sRGB's own.
    ///
    /// Relative colorimetric through Little CMS 2: colours outside sRGB are clipped, alpha is
    /// copied, gray stays gray (with sRGB's curve).
    ///
    /// - Throws: ``ImageError/invalidColourProfile(message:)`` when Little CMS cannot convert with
    ///   the profile.
    /// - Complexity: O(pixels).
    public func convertedToSRGB() throws(ImageError) -> Image {
        guard let colourProfile else { return self }
        guard !colourProfile.isSRGB else {
            return Image(unchecked: width, height: height, format: format, pixels: pixels)
        }
        let transform = try ColourTransform.cached(for: colourProfile, layout: format.colourLayout)
        return Image(unchecked: width, height: height, format: format, pixels: transform.apply(to: pixels))
    }

    /// The same pixels, declared to be in `profile` (`nil`: sRGB).
    ///
    /// - Throws: ``ImageError/invalidColourProfile(message:)`` for a profile of another colour
    ///   space than the pixels.
    public func withColourProfile(_ profile: ColourProfile?) throws(ImageError) -> Image {
        if let profile, !profile.describes(format) {
            throw .invalidColourProfile(message: "a \(profile.colourSpace) profile cannot describe \(format) pixels")
        }
        return Image(unchecked: width, height: height, format: format, pixels: pixels, colourProfile: profile)
    }
}
