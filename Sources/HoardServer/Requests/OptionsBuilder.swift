import Foundation

/// Collects options in order, Hoard's spellings and imgproxy's (full and short names, with
/// imgproxy's argument rules: `name:arg1:arg2…`, an empty argument keeps its default), checking
/// each value's syntax; the range checks are ``ProcessingOptions/validate()``'s. Later options
/// override earlier ones.
struct OptionsBuilder {
    private var options = ProcessingOptions(width: 0, height: 0)
    private var heightGiven = false
    private let style: ImagePath.Style

    init(style: ImagePath.Style) {
        self.style = style
    }

    /// Applies one option; presets are expanded by ``ImagePath``.
    mutating func apply(_ name: String, _ arguments: [Substring]) throws(ServeError) {
        var reader = Arguments(name: name, values: arguments)
        switch name {
        case "w", "width": options.width = try reader.integer() ?? 0
        case "h", "height":
            options.height = try reader.integer() ?? 0
            heightGiven = true
        case "fit":
            // Hoard's own spelling: its `fill` has always kept the box's proportions (imgproxy's fill-down).
            let fit = try reader.choice(ProcessingOptions.Fit.self) ?? .fit
            options.fit = fit == .fill ? .fillDown : fit
        case "rt", "resizing_type": options.fit = try reader.choice(ProcessingOptions.Fit.self) ?? options.fit
        case "rs", "resize":
            options.fit = try reader.choice(ProcessingOptions.Fit.self) ?? options.fit
            try applySize(&reader)
        case "s", "size": try applySize(&reader)
        case "mw", "min-width": options.minimumWidth = try reader.integer() ?? 0
        case "mh", "min-height": options.minimumHeight = try reader.integer() ?? 0
        case "dpr": options.pixelRatio = try reader.number() ?? 1
        case "el", "enlarge": options.enlarges = try reader.boolean() ?? false
        case "ex", "extend": try applyExtend(&reader)
        case "g", "gravity": options.placement = try reader.placement() ?? .init()
        case "c", "crop":
            let width = try reader.number() ?? 0
            let height = try reader.number() ?? 0
            options.crop = .init(width: width, height: height, placement: try reader.placement())
        case "q", "quality":
            let quality = try reader.integer() ?? 0
            options.quality = quality == 0 ? nil : quality
        case "f", "format", "ext": options.format = try Self.format(try reader.text() ?? "auto", name)
        case "bg", "background": options.background = try reader.colour()
        case "bl", "blur":
            let sigma = try reader.number() ?? 0
            options.blur = sigma == 0 ? nil : sigma
        case "sh", "sharpen":
            let sigma = try reader.number() ?? 0
            options.sharpen = sigma == 0 ? nil : sigma
        case "ar", "auto_rotate":
            guard try reader.boolean() ?? true else {
                throw .badOptions("\(name): false is not supported: Hoard always applies the EXIF orientation")
            }
        case "sm", "strip_metadata":
            guard try reader.boolean() ?? true else {
                throw .badOptions("\(name): false is not supported: Hoard never copies metadata into a variant")
            }
        case "cb", "cachebuster": options.cacheBuster = reader.remainder().nilIfEmpty
        case "exp", "expires": options.expires = try reader.integer()
        default:
            throw .badOptions("unknown option \"\(name)\"")
        }
        try reader.finish()
    }

    /// The options; in Hoard's style a box given no height anywhere is square.
    func built() throws(ServeError) -> ProcessingOptions {
        var built = options
        if style == .hoard, !heightGiven { built.height = nil }
        try built.validate()
        return built
    }

    /// `format`'s value: Hoard's names and imgproxy's extensions.
    static func format(_ value: String, _ name: String) throws(ServeError) -> ProcessingOptions.Format {
        switch value {
        case "auto": .auto
        case "jpeg", "jpg": .jpeg
        case "png": .png
        case "webp": .webp
        case "avif": .avif
        default: throw .badOptions("\(name): \"\(value)\" is not one of auto, jpeg (jpg), png, webp, avif")
        }
    }

    /// `width:height:enlarge:extend[:gravity…]` of `size` and of `resize` after its type.
    private mutating func applySize(_ reader: inout Arguments) throws(ServeError) {
        if let width = try reader.integer() { options.width = width }
        if let height = try reader.integer() {
            options.height = height
            heightGiven = true
        }
        if let enlarge = try reader.boolean() { options.enlarges = enlarge }
        try applyExtend(&reader)
    }

    /// `extend[:gravity[:x:y]]`.
    private mutating func applyExtend(_ reader: inout Arguments) throws(ServeError) {
        guard let extend = try reader.boolean() else { return }
        let placement = try reader.placement() ?? .init()
        options.extend = extend ? placement : nil
    }
}

/// One option's arguments, read in order.
private struct Arguments {
    let name: String
    var values: ArraySlice<Substring>

    init(name: String, values: [Substring]) {
        self.name = name
        self.values = values[...]
    }

    /// The next argument, `nil` when there is none or it is empty.
    mutating func text() throws(ServeError) -> String? {
        guard let value = values.popFirst(), !value.isEmpty else { return nil }
        guard value.utf8.count <= 64 else { throw .badOptions("\(name): an argument is longer than 64 bytes") }
        return String(value)
    }

    /// Everything left, joined by `:` (a cache buster may hold colons).
    mutating func remainder() -> String {
        defer { values = [] }
        return values.joined(separator: ":")
    }

    mutating func integer() throws(ServeError) -> Int? {
        guard let value = try text() else { return nil }
        guard value.utf8.count <= 12, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(value)
        else { throw .badOptions("\(name): \"\(value)\" is not a whole number") }
        return number
    }

    mutating func number() throws(ServeError) -> Double? {
        guard let value = try text() else { return nil }
        guard value.utf8.count <= 12, value.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == UInt8(ascii: ".") }),
            let number = Double(value), number.isFinite
        else { throw .badOptions("\(name): \"\(value)\" is not a number") }
        return number
    }

    /// `1`, `t`, `true` or `0`, `f`, `false` (in any case, as imgproxy reads them).
    mutating func boolean() throws(ServeError) -> Bool? {
        guard let value = try text() else { return nil }
        switch value.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw .badOptions("\(name): \"\(value)\" is not true or false (1, t, true, 0, f, false)")
        }
    }

    mutating func choice<T: RawRepresentable & CaseIterable>(_: T.Type) throws(ServeError) -> T?
    where T.RawValue == String {
        guard let value = try text() else { return nil }
        guard let choice = T(rawValue: value) else {
            throw .badOptions("\(name): \"\(value)\" is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    /// `gravity[:x:y]`, the focus point `fp:x:y`, or `sm`.
    mutating func placement() throws(ServeError) -> ProcessingOptions.Placement? {
        guard let value = try text() else { return nil }
        guard let gravity = Self.gravities[value] else {
            throw .badOptions("\(name): \"\(value)\" is not a gravity (ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp)")
        }
        var placement = ProcessingOptions.Placement(gravity)
        guard gravity != .smart else { return placement }  // no offsets
        placement.x = try signedNumber() ?? (gravity == .focusPoint ? 0.5 : 0)
        placement.y = try signedNumber() ?? (gravity == .focusPoint ? 0.5 : 0)
        return placement
    }

    mutating func colour() throws(ServeError) -> ProcessingOptions.Colour? {
        guard let first = try text() else { return nil }
        if values.isEmpty {
            let hex = first.hasPrefix("#") ? String(first.dropFirst()) : first
            guard hex.utf8.count == 6, let value = UInt32(hex, radix: 16) else {
                throw .badOptions("\(name): \"\(first)\" is not R:G:B or a hex colour")
            }
            return .init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
        }
        values.insert(Substring(first), at: values.startIndex)
        var channels: [UInt8] = []
        for _ in 0..<3 {
            guard let channel = try integer(), channel <= 255 else {
                throw .badOptions("\(name): R:G:B takes three whole numbers from 0 to 255")
            }
            channels.append(UInt8(channel))
        }
        return .init(red: channels[0], green: channels[1], blue: channels[2])
    }

    /// Fails on arguments left over.
    func finish() throws(ServeError) {
        guard values.isEmpty else { throw .badOptions("\(name): too many arguments") }
    }

    private mutating func signedNumber() throws(ServeError) -> Double? {
        guard let value = try text() else { return nil }
        let negative = value.hasPrefix("-")
        values.insert(Substring(negative ? String(value.dropFirst()) : value), at: values.startIndex)
        guard let magnitude = try number() else { throw .badOptions("\(name): \"\(value)\" is not a number") }
        return negative ? -magnitude : magnitude
    }

    private static let gravities: [String: ProcessingOptions.Gravity] = [
        "center": .center, "ce": .center, "north": .north, "no": .north, "south": .south, "so": .south,
        "east": .east, "ea": .east, "west": .west, "we": .west, "ne": .northEast, "noea": .northEast,
        "nw": .northWest, "nowe": .northWest, "se": .southEast, "soea": .southEast, "sw": .southWest,
        "sowe": .southWest, "sm": .smart, "fp": .focusPoint,
    ]
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
