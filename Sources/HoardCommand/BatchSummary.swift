import Foundation

/// What happened to one input.
struct InputResult: Sendable, Encodable {
    enum Status: Sendable, Equatable {
        case pending
        case made
        case fromCache
        case failed(String)
    }

    let input: String
    var status: Status = .pending
    var output: String?
    /// The thumbnail's cache key, size, format and byte count, once it is written.
    var thumbnail: (key: String, width: Int?, height: Int?, format: String?, bytes: Int)?
    /// Outputs of an earlier run removed because this input failed.
    var removedOutputs: [String] = []
    /// What decoding this input's original warned of (a truncated file, an ignored profile).
    var warnings: [String] = []
    var bytesDownloaded = 0
    /// Values (the thumbnail, the original) this input took from the shared tier: stored there by
    /// another machine, or by another worker that this one waited for.
    var remoteHits = 0
    /// Requests that revalidated a cached original (conditional when it had a validator).
    var revalidations = 0
    /// Revalidations answered `304 Not Modified`.
    var notModified = 0
    /// Revalidations that brought bytes other than the cached original's.
    var changedOriginals = 0

    enum CodingKeys: String, CodingKey {
        case input, status, output, error, bytesDownloaded, revalidations, notModified, changedOriginals
        case key, width, height, format, bytes, removedOutputs, warnings
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(input, forKey: .input)
        switch status {
        case .pending: try container.encode("pending", forKey: .status)
        case .made: try container.encode("made", forKey: .status)
        case .fromCache: try container.encode("cached", forKey: .status)
        case .failed(let reason):
            try container.encode("failed", forKey: .status)
            try container.encode(reason, forKey: .error)
        }
        try container.encodeIfPresent(output, forKey: .output)
        if !removedOutputs.isEmpty { try container.encode(removedOutputs, forKey: .removedOutputs) }
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
        if let thumbnail {
            try container.encode(thumbnail.key, forKey: .key)
            try container.encodeIfPresent(thumbnail.width, forKey: .width)
            try container.encodeIfPresent(thumbnail.height, forKey: .height)
            try container.encodeIfPresent(thumbnail.format, forKey: .format)
            try container.encode(thumbnail.bytes, forKey: .bytes)
        }
        try container.encode(bytesDownloaded, forKey: .bytesDownloaded)
        try container.encode(revalidations, forKey: .revalidations)
        try container.encode(notModified, forKey: .notModified)
        try container.encode(changedOriginals, forKey: .changedOriginals)
    }
}

/// What the shared tier did in a run, besides its hits (counted per input).
struct RemoteActivity: Sendable, Equatable {
    /// Fetches that found another worker fetching the same key and waited for its value
    /// (``HoardStatistics/sharedFetchWaits``).
    var waits = 0
    /// Redis commands that failed (``RedisTierStatistics/errors``).
    var errors = 0
}

/// The totals of a run, printed at the end.
struct BatchSummary: Sendable, Encodable {
    let results: [InputResult]
    let elapsed: Double
    /// The shared tier's activity, or `nil` without one (then the remote line is not printed, and
    /// the JSON's remote counts are 0).
    var remote: RemoteActivity?

    var made: Int { results.count { $0.status == .made } }
    var fromCache: Int { results.count { $0.status == .fromCache } }
    var failed: Int { results.count { if case .failed = $0.status { true } else { false } } }
    var bytesDownloaded: Int { results.reduce(0) { $0 + $1.bytesDownloaded } }
    var imagesPerSecond: Double { elapsed > 0 ? Double(made + fromCache) / elapsed : 0 }
    /// Thumbnails and originals taken from the shared tier.
    var remoteHits: Int { results.reduce(0) { $0 + $1.remoteHits } }
    /// Requests that revalidated cached originals.
    var revalidations: Int { results.reduce(0) { $0 + $1.revalidations } }
    /// Revalidations answered `304 Not Modified`.
    var notModified: Int { results.reduce(0) { $0 + $1.notModified } }
    /// Revalidations that brought changed originals.
    var changedOriginals: Int { results.reduce(0) { $0 + $1.changedOriginals } }

    enum CodingKeys: String, CodingKey {
        case inputs, made, fromCache, failed, bytesDownloaded, elapsedSeconds, imagesPerSecond, results
        case remoteHits, remoteWaits, remoteErrors
        case revalidations, notModified, changedOriginals
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(results.count, forKey: .inputs)
        try container.encode(made, forKey: .made)
        try container.encode(fromCache, forKey: .fromCache)
        try container.encode(failed, forKey: .failed)
        try container.encode(bytesDownloaded, forKey: .bytesDownloaded)
        try container.encode(elapsed, forKey: .elapsedSeconds)
        try container.encode(imagesPerSecond, forKey: .imagesPerSecond)
        try container.encode(remoteHits, forKey: .remoteHits)
        try container.encode(remote?.waits ?? 0, forKey: .remoteWaits)
        try container.encode(remote?.errors ?? 0, forKey: .remoteErrors)
        try container.encode(revalidations, forKey: .revalidations)
        try container.encode(notModified, forKey: .notModified)
        try container.encode(changedOriginals, forKey: .changedOriginals)
        try container.encode(results, forKey: .results)
    }

    /// The human summary (standard output, or standard error with `--json`), then the failures.
    func print(json: Bool, outputDirectory: String) {
        var text = """
            \(Quantity.of(results.count, "input")) -> \(outputDirectory)
              made:       \(made)
              from cache: \(fromCache)
              failed:     \(failed)
              downloaded: \(ByteCount.humanAndExact(bytesDownloaded))
              elapsed:    \(elapsed.fixed(decimals: 2)) s (\(imagesPerSecond.fixed(decimals: 1)) images/s)

            """
        if revalidations > 0 {
            text +=
                "  originals:  \(revalidations) revalidated, \(notModified) not modified (304), \(changedOriginals) changed\n"
        }
        if let remote {
            text +=
                "  remote:     \(remoteHits) hits, \(remote.waits) waits for another worker, \(remote.errors) errors\n"
        }
        let failures = results.compactMap { result -> String? in
            guard case .failed(let reason) = result.status else { return nil }
            let removed = result.removedOutputs.map { "\n    removed its output from an earlier run: \($0)" }
            return "  \(result.input): \(reason)" + removed.joined()
        }
        if !failures.isEmpty { text += "failed inputs:\n" + failures.joined(separator: "\n") + "\n" }
        let warned = results.filter { !$0.warnings.isEmpty && $0.status != .pending }
        if !warned.isEmpty {
            text += "warnings:\n" + warned.map { "  \($0.input): " + $0.warnings.joined(separator: "; ") }.joined(separator: "\n") + "\n"
        }
        if json {
            FileHandle.standardError.write(Data(text.utf8))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(self) { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }
}
