@testable import HoardCore

/// Runs a short script of cache operations and reports which keys were evicted, in order.
///
/// A script is a list of words: `s7` sets key 7 (value 7, cost 0), `g7` gets it, `r7` removes it.
/// Keys evicted by one `set` are reported in ascending order (with a count limit, one set evicts
/// one key).
struct EvictionScript {
    let cache: MemoryCache<Int, Int>
    private(set) var victims: [Int] = []

    init(policy: EvictionPolicy, countLimit: Int) throws {
        cache = try MemoryCache(configuration: .init(countLimit: countLimit, evictionPolicy: policy))
    }

    /// The keys in the cache.
    var keys: Set<Int> {
        Set(cache.withStorage { $0.contents.keys })
    }

    /// Runs `script`; evicted keys are appended to ``victims``.
    mutating func run(_ script: String) throws {
        for word in script.split(separator: " ") {
            guard let operation = word.first, let key = Int(word.dropFirst()) else {
                preconditionFailure("bad script word \(word)")
            }
            switch operation {
            case "s":
                let before = keys
                try cache.setValue(key, forKey: key)
                victims += before.subtracting(keys).sorted()
            case "g":
                _ = cache.value(forKey: key)
            case "r":
                cache.removeValue(forKey: key)
            default:
                preconditionFailure("bad script operation \(operation)")
            }
        }
    }

    /// The victims of running `script` on a new cache.
    static func victims(
        policy: EvictionPolicy, countLimit: Int, _ script: String
    ) throws -> (victims: [Int], keys: Set<Int>) {
        var run = try EvictionScript(policy: policy, countLimit: countLimit)
        try run.run(script)
        return (run.victims, run.keys)
    }
}
