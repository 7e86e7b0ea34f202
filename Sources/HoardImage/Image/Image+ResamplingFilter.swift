import Foundation
import HoardCore

extension Image {
    /// A resampling kernel for ``Image/resized(toFit:filter:)``.
    ///
    /// When shrinking, every kernel is stretched by the scale factor, so each output pixel averages
    /// all the input pixels under it (no aliasing from skipped pixels).
    public enum ResamplingFilter: Sendable, Hashable, CaseIterable {
        /// Area averaging: each output pixel is the mean of the input pixels it covers.
        case box
        /// Linear interpolation (a triangle kernel).
        case bilinear
        /// Catmull-Rom cubic (bicubic with a = -0.5): sharp, little ringing.
        case catmullRom
        /// Lanczos with three lobes: the sharpest; slight ringing at hard edges.
        case lanczos3

        /// Half the kernel's width, in input pixels at scale 1.
        var support: Double {
            switch self {
            case .box: 0.5
            case .bilinear: 1
            case .catmullRom: 2
            case .lanczos3: 3
            }
        }

        /// The kernel's weight at distance `x` (in input pixels at scale 1).
        func weight(_ x: Double) -> Double {
            let x = abs(x)
            switch self {
            case .box:
                return x <= 0.5 ? 1 : 0
            case .bilinear:
                return x < 1 ? 1 - x : 0
            case .catmullRom:
                let a = -0.5
                if x < 1 { return ((a + 2) * x - (a + 3)) * x * x + 1 }
                if x < 2 { return (((x - 5) * x + 8) * x - 4) * a }
                return 0
            case .lanczos3:
                guard x < 3 else { return 0 }
                guard x != 0 else { return 1 }
                // sinc(x) * sinc(x / 3) = 3 sin(πx) sin(πx/3) / (πx)², with one sine instead of two:
                // sin(πx) = 3s - 4s³ where s = sin(πx/3): the sine dominates the weights' cost.
                let s = sin(Double.pi * x / 3)
                let squared = s * s
                return 3 * squared * (3 - 4 * squared) / (Double.pi * Double.pi * x * x)
            }
        }
    }
}
