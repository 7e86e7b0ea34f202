import HoardCore

extension Image {
    /// Returns the image in another pixel format.
    ///
    /// Gray becomes colour by copying the gray value into red, green and blue; colour becomes gray
    /// by Rec. 601 luma (`0.299 R + 0.587 G + 0.114 B`). Adding alpha makes every pixel opaque;
    /// removing alpha drops it (use ``flattened(onto:)`` to composite instead). Between gray and
    /// colour, an image with a ``colourProfile`` is converted to sRGB first (a profile describes
    /// one of the two); otherwise the profile is kept.
    ///
    /// - Parameter target: The format wanted.
    /// - Returns: `self` when the format already matches, else a converted copy.
    /// - Complexity: O(pixels).
    public func converted(to target: PixelFormat) -> Image {
        guard target != format else { return self }
        if colourProfile != nil, target.isColor != format.isColor {
            // A profile Little CMS cannot use was checked when it was made; if it still fails, the
            // values are read as sRGB, as a decoder does with such a profile.
            let srgb = (try? convertedToSRGB()) ?? Image(unchecked: width, height: height, format: format, pixels: pixels)
            return srgb.converted(to: target)
        }
        let sourceChannels = format.channelCount
        let targetChannels = target.channelCount
        let sourceFormat = format
        let count = width * height
        let output = [UInt8](unsafeUninitializedCapacity: count * targetChannels) { out, initialized in
            pixels.withUnsafeBufferPointer { input in
                for i in 0..<count {
                    let s = i * sourceChannels
                    let (r, g, b, a): (UInt8, UInt8, UInt8, UInt8) =
                        switch sourceFormat {
                        case .gray8: (input[s], input[s], input[s], 255)
                        case .grayAlpha8: (input[s], input[s], input[s], input[s + 1])
                        case .rgb8: (input[s], input[s + 1], input[s + 2], 255)
                        case .rgba8: (input[s], input[s + 1], input[s + 2], input[s + 3])
                        }
                    let t = i * targetChannels
                    switch target {
                    case .gray8:
                        out[t] = sourceFormat.isColor ? Self.luma(r, g, b) : r
                    case .grayAlpha8:
                        out[t] = sourceFormat.isColor ? Self.luma(r, g, b) : r
                        out[t + 1] = a
                    case .rgb8:
                        out[t] = r; out[t + 1] = g; out[t + 2] = b
                    case .rgba8:
                        out[t] = r; out[t + 1] = g; out[t + 2] = b; out[t + 3] = a
                    }
                }
            }
            initialized = count * targetChannels
        }
        return Image(unchecked: width, height: height, format: target, pixels: output, colourProfile: colourProfile)
    }

    /// Whether every pixel is fully opaque: `true` without an alpha channel, else whether every
    /// alpha value is 255 (an opaque picture saved with an alpha channel, as many PNGs are).
    ///
    /// - Complexity: O(pixels) with an alpha channel, O(1) without.
    public var isOpaque: Bool {
        guard hasAlpha else { return true }
        let channels = format.channelCount
        return pixels.withUnsafeBufferPointer { bytes in
            var alpha = channels - 1
            while alpha < bytes.count {
                if bytes[alpha] != 255 { return false }
                alpha += channels
            }
            return true
        }
    }

    /// Composites the image onto a uniform gray background and drops alpha.
    ///
    /// - Parameter background: The background level, 0 (black) to 255 (white).
    /// - Returns: `self` when there is no alpha, else an opaque ``PixelFormat/gray8`` or
    ///   ``PixelFormat/rgb8`` image.
    /// - Complexity: O(pixels).
    public func flattened(onto background: UInt8) -> Image {
        guard hasAlpha else { return self }
        let channels = format.channelCount
        let colorChannels = channels - 1
        let count = width * height
        let backgroundTerm = UInt32(background)
        let output = [UInt8](unsafeUninitializedCapacity: count * colorChannels) { out, initialized in
            pixels.withUnsafeBufferPointer { input in
                for i in 0..<count {
                    let alpha = UInt32(input[i * channels + colorChannels])
                    for c in 0..<colorChannels {
                        let value = UInt32(input[i * channels + c])
                        out[i * colorChannels + c] = UInt8((value * alpha + backgroundTerm * (255 - alpha) + 127) / 255)
                    }
                }
            }
            initialized = count * colorChannels
        }
        return Image(unchecked: width, height: height, format: format == .rgba8 ? .rgb8 : .gray8, pixels: output, colourProfile: colourProfile)
    }

    private static func luma(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let red: UInt32 = 299 * UInt32(r)
        let green: UInt32 = 587 * UInt32(g)
        let blue: UInt32 = 114 * UInt32(b)
        return UInt8((red + green + blue + 500) / 1000)
    }
}
