/// A rule that decides whether a value is stored at all.
///
/// A ``Hoard`` asks its ``Hoard/Configuration/insertionPolicy`` before every store: explicit
/// ``Hoard/store(_:forKey:expiry:)-(_,String,_)`` calls and values a fetch produced alike. A refused value is
/// not stored, the key's previous value is removed (so that an older value is never served in its
/// place), and the refusal is counted in ``HoardStatistics/refusedStores`` and reported as
/// ``HoardEvent/storeRefused(key:byteCount:)``. The caller of a fetch still gets the value.
///
/// ```swift
/// var configuration = Hoard.Configuration(name: "thumbnails")
/// configuration.insertionPolicy = .maximumByteCount(30 * 1024)     // skip images over 30 KB
/// configuration.insertionPolicy = InsertionPolicy { candidate in   // or any rule
///     !candidate.key.hasPrefix("private/") && candidate.byteCount <= 30 * 1024
/// }
/// ```
public struct InsertionPolicy: Sendable {
    /// What the policy sees of a value about to be stored.
    public struct Candidate: Sendable {
        /// The key the value would be stored under.
        public let key: String
        /// The value.
        public let value: any Cachable
        /// The size of its encoded form in bytes: what the disk tier would hold (for an opaque
        /// ``Image``, the JPEG at the configuration's quality).
        public let byteCount: Int

        /// Describes a value about to be stored; caches make these, tests of a policy may too.
        ///
        /// ```swift
        /// let policy = InsertionPolicy.maximumByteCount(1_024)
        /// policy.shouldStore(.init(key: "k", value: "small", byteCount: 5))   // true
        /// ```
        public init(key: String, value: any Cachable, byteCount: Int) {
            self.key = key
            self.value = value
            self.byteCount = byteCount
        }
    }

    /// Stores every value. The default.
    public static let always = InsertionPolicy { _ in true }

    /// Stores values whose encoded form is at most `limit` bytes.
    ///
    /// - Parameter limit: The largest encoded size stored, in bytes.
    /// - Returns: The policy.
    public static func maximumByteCount(_ limit: Int) -> InsertionPolicy {
        InsertionPolicy { $0.byteCount <= limit }
    }

    /// Whether `candidate` is to be stored.
    ///
    /// - Complexity: That of the rule.
    public let shouldStore: @Sendable (Candidate) -> Bool

    /// A policy that stores a value when `shouldStore` returns `true`.
    ///
    /// - Parameter shouldStore: Called before every store, on the storing task; keep it cheap.
    public init(_ shouldStore: @escaping @Sendable (Candidate) -> Bool) {
        self.shouldStore = shouldStore
    }
}
