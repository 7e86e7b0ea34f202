import Foundation
import HoardSystem

/// The settings a cache hands to ``Cachable/encode(with:)``: one value per
/// ``CachableEncodingOption``, each declared by the module whose types read it (the JPEG quality
/// is `HoardImage`'s), so that the cache core knows none of them.
///
/// ```swift
/// var options = CachableEncodingOptions()
/// options[JPEGQuality.self] = 80  // or options.jpegQuality = 80, with HoardImage
/// ```
public struct CachableEncodingOptions: Sendable {
    /// The values set, by option type.
    private var values: [ObjectIdentifier: Setting] = [:]

    /// Settings with every option at its default.
    public init() {}

    /// The value of `option`: the one set, else its ``CachableEncodingOption/defaultValue``.
    public subscript<Option: CachableEncodingOption>(option: Option.Type) -> Option.Value {
        get { values[ObjectIdentifier(option)]?.value as? Option.Value ?? Option.defaultValue }
        set {
            let check: @Sendable () throws(InvalidValueError) -> Void = { () throws(InvalidValueError) in
                try Option.validate(newValue)
            }
            values[ObjectIdentifier(option)] = Setting(value: newValue, validate: check)
        }
    }

    /// Checks every value set against its option's rule.
    ///
    /// - Throws: The first option's ``InvalidValueError``.
    public func validate() throws(InvalidValueError) {
        for setting in values.values {
            try setting.validate()
        }
    }

    /// A value with its option's check.
    private struct Setting: Sendable {
        let value: any Sendable
        let validate: @Sendable () throws(InvalidValueError) -> Void
    }
}

/// A setting of ``CachableEncodingOptions``: its value type, default and rule.
///
/// ```swift
/// enum WebPLossless: CachableEncodingOption {
///     static let defaultValue = false
/// }
/// ```
public protocol CachableEncodingOption: SendableMetatype {
    /// The setting's type.
    associatedtype Value: Sendable
    /// The value when none is set.
    static var defaultValue: Value { get }
    /// Throws when `value` cannot be used; the default accepts every value.
    ///
    /// - Throws: ``InvalidValueError`` naming the setting and what it must be.
    static func validate(_ value: Value) throws(InvalidValueError)
}

extension CachableEncodingOption {
    /// Accepts every value.
    public static func validate(_ value: Value) throws(InvalidValueError) {}
}
