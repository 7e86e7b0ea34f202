import ArgumentParser
import HoardServer

/// What `--size` accepts: `256` (a square box, the longest side) or `256x128` (width by height).
struct ThumbnailBox: Sendable, Equatable, ExpressibleByArgument {
    /// The box's width in pixels.
    let width: Int
    /// Its height; `nil` for a square box of ``width``.
    let height: Int?

    /// The sides `--size` accepts.
    static let sides = 1...1_000_000

    init?(argument: String) {
        let parts = argument.split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count),
            let width = Self.side(parts[0]), parts.count == 1 || Self.side(parts[1]) != nil
        else { return nil }
        self.width = width
        height = parts.count == 2 ? Self.side(parts[1]) : nil
    }

    /// The box as output names spell it: `256`, or `256x128`.
    var spelled: String { height.map { "\(width)x\($0)" } ?? "\(width)" }

    private static func side(_ text: Substring) -> Int? {
        guard text.utf8.count <= 7, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let side = Int(text),
            sides.contains(side)
        else { return nil }
        return side
    }
}

/// What `--fit` accepts.
enum ThumbnailFit: String, ExpressibleByArgument, Sendable, CaseIterable {
    /// Inside the box, keeping the proportions.
    case fit
    /// Cover the box, then crop to it around the gravity (to its proportions for a smaller source).
    case fill

    var resizing: ProcessingOptions.Fit { self == .fit ? .fit : .fillDown }
}

/// What `--gravity` accepts: the part of the image a fill keeps.
enum ThumbnailGravity: String, ExpressibleByArgument, Sendable, CaseIterable {
    case centre, north, south, east, west, ne, nw, se, sw, smart

    var gravity: ProcessingOptions.Gravity {
        switch self {
        case .centre: .center
        case .north: .north
        case .south: .south
        case .east: .east
        case .west: .west
        case .ne: .northEast
        case .nw: .northWest
        case .se: .southEast
        case .sw: .southWest
        case .smart: .smart
        }
    }
}
