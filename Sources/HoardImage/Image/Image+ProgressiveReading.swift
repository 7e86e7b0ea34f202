import CHoardCodecs
import HoardCore

extension Image {
    /// How much of a progressive JPEG a scaled decode reads: the choice behind
    /// ``DecodingOptions/progressiveReading``.
    ///
    /// A progressive JPEG sends every block's coefficients in several scans: first the average
    /// colour (DC), then the other frequencies, each coarse first and refined by later scans. A
    /// decode at 1/8 scale uses only the DC, and 1/4 or 1/2 only some of the rest, yet reading a
    /// scan costs its entropy decoding whatever the scale. Stopping once the coefficients the
    /// scale uses have arrived skips the rest of the file. Full-size decodes, and baseline
    /// (sequential) files, always read everything.
    ///
    /// Damage in the scans a decode skips is not seen: such a file may decode at a small scale and
    /// throw at full size.
    public enum ProgressiveReading: Sendable, Hashable, CaseIterable {
        /// Read every scan, as libjpeg does by default.
        case everyScan
        /// Stop once every coefficient the scale uses is final: the pixels are exactly those of
        /// reading every scan.
        case exact
        /// At 1/8 scale, stop once every coefficient the scale uses lacks at most its lowest bit,
        /// skipping the last refinement scans (usually the largest); at 1/4 and 1/2, as
        /// ``exact``.
        ///
        /// At 1/8 each output pixel is a block's average colour, and the missing bit moves it by
        /// a few levels, too few to see. At 1/4 and 1/2 it moved edges by enough that a thumbnail
        /// could show it, so those scales stay exact (the figures: the DocC article "Measurements
        /// behind the design", "Figures behind the source's choices").
        case nearlyExact

        /// The C layer's `HOARD_PROGRESSIVE_*` value.
        var native: UInt32 {
            switch self {
            case .everyScan: UInt32(HOARD_PROGRESSIVE_EVERY_SCAN)
            case .exact: UInt32(HOARD_PROGRESSIVE_EXACT)
            case .nearlyExact: UInt32(HOARD_PROGRESSIVE_NEAR)
            }
        }
    }
}
