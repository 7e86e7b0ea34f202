import Foundation

/// Collects options in order, checking each value's syntax; the range checks are
/// ``ProcessingOptions/validate()``'s.
struct OptionsBuilder {
    var width: Int?
    var height: Int?
    var fit = ProcessingOptions.Fit.fit
    var gravity = ProcessingOptions.Gravity.center
    var pixelRatio = 1.0
    var quality: Int?
    var format = ProcessingOptions.Format.auto

    mutating func apply(_ name: String, _ value: String) throws(ServeError) {
        switch name {
        case "w": width = try Self.integer(value, name)
        case "h": height = try Self.integer(value, name)
        case "fit": fit = try Self.choice(value, name)
        case "g": gravity = try Self.choice(value, name)
        case "f": format = try Self.choice(value, name)
        case "q": quality = try Self.integer(value, name)
        case "dpr":
            guard value.utf8.count <= 8, let ratio = Double(value), ratio.isFinite else {
                throw .badOptions("dpr: \"\(value)\" is not a number")
            }
            pixelRatio = ratio
        default:
            throw .badOptions("unknown option \"\(name)\"")
        }
    }

    func options() throws(ServeError) -> ProcessingOptions {
        guard let width else { throw .badOptions("w is required") }
        var options = ProcessingOptions(width: width, height: height)
        options.fit = fit
        options.gravity = gravity
        options.pixelRatio = pixelRatio
        options.quality = quality
        options.format = format
        try options.validate()
        return options
    }

    private static func integer(_ value: String, _ name: String) throws(ServeError) -> Int {
        guard value.utf8.count <= 6, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(value) else {
            throw .badOptions("\(name): \"\(value)\" is not a whole number")
        }
        return number
    }

    private static func choice<T: RawRepresentable & CaseIterable>(_ value: String, _ name: String) throws(ServeError)
        -> T where T.RawValue == String
    {
        guard let choice = T(rawValue: value) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badOptions("\(name): \"\(value)\" is not one of \(names)")
        }
        return choice
    }
}
