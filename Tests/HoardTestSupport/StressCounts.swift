import Foundation

/// What a worker of the multi-process stress workload (`HoardDiskStress stress`) did, added up
/// over a child's workers and printed as one line of `name=count` pairs that the test parses back.
///
/// ```swift
/// let counts = StressCounts(summary: "stores=10 storedBytes=4096 reads=9 hits=7 ...")
/// ```
public struct StressCounts: Sendable, Hashable {
    /// The largest payload a stress worker stores (64 KiB).
    public static let maximumValueByteCount = 65_536

    public var stores = 0
    /// Bytes of the values stored (not counting the entry files' headers).
    public var storedBytes = 0
    public var reads = 0
    public var hits = 0
    public var removes = 0
    /// Explicit calls to `trim()`.
    public var trims = 0
    /// Trims, explicit or automatic, that found the folder over the limit (from the cache's log).
    public var trimsThatRemoved = 0
    /// Operations that threw, and warnings the cache logged.
    public var errors = 0
    /// Values read back that were not exactly a value stored for their key.
    public var wrongValues = 0
    /// What went wrong, for the test's messages; not part of ``summary``.
    public var failures: [String] = []

    public init() {}

    /// Adds another worker's counts.
    public mutating func add(_ other: StressCounts) {
        stores += other.stores
        storedBytes += other.storedBytes
        reads += other.reads
        hits += other.hits
        removes += other.removes
        trims += other.trims
        trimsThatRemoved += other.trimsThatRemoved
        errors += other.errors
        wrongValues += other.wrongValues
        failures += other.failures
    }

    /// The counts as `stores=… storedBytes=… reads=… hits=… removes=… trims=… trimsThatRemoved=…
    /// errors=… wrongValues=…`.
    public var summary: String {
        Self.fields.map { "\($0.name)=\(self[keyPath: $0.path])" }.joined(separator: " ")
    }

    /// Parses the first line of `output` that holds a ``summary``; `nil` when none does.
    public init?(summary output: String) {
        for line in output.split(separator: "\n") {
            let pairs = line.split(separator: " ").compactMap { word -> (String, Int)? in
                let parts = word.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = Int(parts[1]) else { return nil }
                return (String(parts[0]), value)
            }
            let values = Dictionary(pairs, uniquingKeysWith: { $1 })
            guard Self.fields.allSatisfy({ values[$0.name] != nil }) else { continue }
            self.init()
            for field in Self.fields { self[keyPath: field.path] = values[field.name] ?? 0 }
            return
        }
        return nil
    }

    private static var fields: [(name: String, path: WritableKeyPath<StressCounts, Int>)] {
        [
            ("stores", \.stores), ("storedBytes", \.storedBytes), ("reads", \.reads), ("hits", \.hits),
            ("removes", \.removes), ("trims", \.trims), ("trimsThatRemoved", \.trimsThatRemoved),
            ("errors", \.errors), ("wrongValues", \.wrongValues),
        ]
    }
}
