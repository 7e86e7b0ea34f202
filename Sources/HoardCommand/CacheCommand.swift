import ArgumentParser
import Foundation
import Hoard
import HoardRedis

/// `hoard cache`: look after the cache the thumbnails job uses.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Inspect and maintain the cache.",
        discussion: """
            With --remote (or $HOARD_REMOTE), stats also shows each Redis server's view of the \
            namespace, and put, remove, forget and clear act on the shared cache too: a value \
            removed or cleared there is gone for every machine (clear also empties their local \
            caches when they next look). list, get and prune see the local cache only. Downloaded \
            originals live in the folder's originals/ cache, with a limit of their own \
            (--originals-limit); every subcommand covers both.
            """,
        subcommands: [Stats.self, List.self, Get.self, Put.self, Remove.self, Forget.self, Prune.self, Clear.self]
    )
}

extension CacheCommand {
    /// Without a subcommand: a usage error (exit 64), not the help with success.
    func run() throws {
        throw ValidationError("name a subcommand: stats, list, get, put, remove, forget, prune or clear")
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract:
                "Entries and sizes (by kind with --by-kind), the limits; with --remote, each Redis server's values, leases and memory.")
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions
        @Flag(
            name: .long,
            help: "Count entries and sizes by kind (thumbnails, originals, records, ...): reads every entry's row, which at a million entries takes a second or two; without it, the indexes' running totals answer at once.")
        var byKind = false

        func run() async throws {
            // The servers first: with --remote-required, one that is down fails before anything is printed.
            let tier = try await remoteOptions.openTier(logger: ToolLogHandler.logger(label: "Hoard.redis"))
            let statuses = await tier?.serverStatus() ?? []
            await tier?.shutdown()
            try cacheOptions.requireExistingFolder()
            let hoard = try cacheOptions.openHoard()
            let originals = try cacheOptions.openOriginals(creating: false)
            // From the indexes: expired entries count until a trim or `prune` removes them.
            let thumbnailsBytes = try hoard.diskSize(), originalsBytes = try originals?.diskSize() ?? 0
            print("directory: \(hoard.directory.path)")
            if byKind {
                let counts = EntryKind.tally(try hoard.diskEntries() + (originals?.diskEntries() ?? []))
                print("entries:   \(counts.values.reduce(0) { $0 + $1.entries })")
                for kind in EntryKind.allCases {
                    let (count, bytes) = counts[kind] ?? (0, 0)
                    print("  \((kind.rawValue + ":").padding(toLength: 19, withPad: " ", startingAt: 0))\(count), \(ByteCount.human(bytes))")
                }
            } else {
                // The indexes' running totals: no row is read (see --by-kind).
                let thumbnails = try hoard.diskEntryCount(), originalsCount = try originals?.diskEntryCount() ?? 0
                print("entries:   \(thumbnails + originalsCount) (--by-kind for each kind's, reading every entry)")
            }
            print("on disk:   \(ByteCount.humanAndExact(thumbnailsBytes + originalsBytes))")
            print(
                "  thumbnails and records: \(ByteCount.human(thumbnailsBytes)) of \(ByteCount.limit(hoard.configuration.diskSizeLimit))"
            )
            let originalsLimit = cacheOptions.originalsMiB << 20
            print(
                "  originals:              \(ByteCount.human(originalsBytes)) of \(ByteCount.limit(originalsLimit)) (--originals-limit \(cacheOptions.originalsMiB) MiB; kept \(CacheOptions.originalsExpiryDays) days)"
            )
            let limit = cacheOptions.cacheLimit << 20
            print("limit:     \(ByteCount.limit(limit)) (\(limit) bytes, --cache-limit \(cacheOptions.cacheLimit) MiB)")
            print("counters:  hits and misses are not kept across runs")
            guard let tier else { return }
            print(
                "remote:    namespace \(tier.configuration.namespace), \(statuses.count) server\(statuses.count == 1 ? "" : "s")"
            )
            for status in statuses { print("  " + Self.describe(status)) }
        }

        /// One server's line: `127.0.0.1:6379/0: reachable, 24 values, 0 leases, used memory
        /// 1.0 MiB, maxmemory 0 (no limit), policy noeviction`.
        static func describe(_ status: RedisServerStatus) -> String {
            guard status.isReachable else { return "\(status.server): unreachable" }
            var fields = ["reachable", Quantity.of(status.valueCount, "value"), Quantity.of(status.leaseCount, "lease")]
            if let used = status.usedMemoryBytes { fields.append("used memory \(ByteCount.human(used))") }
            if let maximum = status.maximumMemoryBytes {
                fields.append("maxmemory " + (maximum == 0 ? "0 (no limit)" : ByteCount.limit(maximum)))
            }
            if let policy = status.evictionPolicy { fields.append("policy \(policy)") }
            return "\(status.server): " + fields.joined(separator: ", ")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every key, with its size and age.")
        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            try cacheOptions.requireExistingFolder()
            let now = Date()
            // One write per 64 KiB of lines rather than one locked `print` per line: a list of 100,000
            // entries is mostly output.
            var output: [UInt8] = Array(Self.header.utf8)
            output.reserveCapacity(1 << 16)
            let entries =
                try cacheOptions.openHoard().diskEntries()
                + (cacheOptions.openOriginals(creating: false)?.diskEntries() ?? [])
            for entry in entries.sorted(by: { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }) {
                let age = Self.seconds(now.timeIntervalSince(entry.creationDate))
                let expiry =
                    entry.expirationDate.map { "expires in \(Self.seconds($0.timeIntervalSince(now))) s" }
                    ?? "no expiry"
                output += "\(entry.payloadByteCount)\t\(age) s\t\(expiry)\t\(entry.key)\n".utf8
                if output.count >= 1 << 16 {
                    FileHandle.standardOutput.write(Data(output))
                    output.removeAll(keepingCapacity: true)
                }
            }
            FileHandle.standardOutput.write(Data(output))
        }

        /// The first line: the columns' names.
        static let header = "bytes\tage\texpiry\tkey\n"

        /// Whole seconds, for display: dates come from entry headers, which may be far off (a
        /// clock set wrong, an entry from the year 4000), so the conversion is clamped, never trapping.
        static func seconds(_ interval: Double) -> Int {
            guard interval.isFinite else { return interval > 0 ? Int.max : Int.min }
            let rounded = interval.rounded(.towardZero)
            guard rounded.magnitude < 9.0e18 else { return rounded > 0 ? Int.max : Int.min }
            return Int(rounded)
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Write a value's bytes to standard output or a file.")
        @Argument(help: "The key.") var key: String
        @Option(name: .long, help: ArgumentHelp("Write to this file instead of standard output.", valueName: "FILE"))
        var output: String?
        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            try cacheOptions.requireExistingFolder()
            let stored =
                try cacheOptions.openHoard().storedBytes(forKey: key)
                ?? cacheOptions.openOriginals(creating: false)?.storedBytes(forKey: key)
            guard let (_, bytes) = stored else {
                throw RunFailure("no entry for key \(key)")
            }
            if let output {
                try bytes.write(to: URL(fileURLWithPath: output), options: .atomic)
            } else {
                FileHandle.standardOutput.write(bytes)
            }
        }
    }

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "put", abstract: "Store a file's bytes under a key.")
        @Argument(help: "The key.") var key: String
        @Argument(help: "The file: a regular file of at most 1 GiB.") var file: String
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions

        /// The largest file `put` reads: it is read whole into memory, once (straight into the
        /// buffer the cache writes from).
        static let maximumByteCount = 1 << 30

        func run() async throws {
            let (descriptor, byteCount): (Int32, Int)
            do {
                (descriptor, byteCount) = try LocalFile.openRegularFile(file, maximumByteCount: Self.maximumByteCount)
            } catch {
                throw RunFailure("cannot read \(file): \(error.localizedDescription)")
            }
            defer { close(descriptor) }
            try await cacheOptions.withHoards(remote: remoteOptions) { hoard, _ in
                do {
                    try await hoard.storeEncoded(byteCount: byteCount, as: Data.self, forKey: key) { buffer in
                        try LocalFile.readExactly(descriptor, into: buffer)
                    }
                } catch let error as LocalFile.ReadError {
                    throw RunFailure("cannot read \(file): \(error.localizedDescription)")
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove the value under a key, or every value whose key starts with a prefix.",
            discussion: """
                --prefix compares the keys' bytes, for example --prefix "thumbnail/v4 https://example.com/" \
                drops the thumbnails of every image on that site. To forget everything the cache holds \
                for one image (thumbnails, original, records), use hoard cache forget SOURCE.
                """)
        @Argument(help: "The key.") var key: String?
        @Option(name: .long, help: ArgumentHelp("Remove every key that starts with this.", valueName: "PREFIX"))
        var prefix: String?
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions

        func validate() throws {
            guard (key == nil) != (prefix == nil) else { throw ValidationError("give either KEY or --prefix PREFIX") }
            if prefix?.isEmpty == true { throw ValidationError("--prefix cannot be empty: use hoard cache clear") }
        }

        func run() async throws {
            try await cacheOptions.withHoards(remote: remoteOptions) { hoard, originals in
                if let prefix {
                    let removed = try await CacheRemoval.removeAll(from: [hoard, originals]) {
                        $0.utf8.starts(with: prefix.utf8)
                    }
                    print("removed \(Quantity.entries(removed.count))")
                } else if let key {
                    try await hoard.remove(forKey: key)
                    try await originals?.remove(forKey: key)
                }
            }
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune", abstract: "Remove expired entries and trim to the limit.")
        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            for hoard in [try cacheOptions.openHoard(), try cacheOptions.openOriginals(creating: false)] {
                guard let hoard else { continue }
                let before = try hoard.diskSize()
                let expired = try hoard.prune()
                let after = try hoard.diskSize()
                let name = hoard.configuration.name == "originals" ? "originals" : "thumbnails and records"
                print(
                    "\(name): removed \(Quantity.of(expired, "expired entry", plural: "expired entries")); \(ByteCount.human(before)) -> \(ByteCount.human(after)) (limit \(ByteCount.limit(hoard.configuration.diskSizeLimit)))"
                )
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "Remove every entry (with --remote, in the shared cache too).")
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions

        func run() async throws {
            try await cacheOptions.withHoards(remote: remoteOptions) { hoard, originals in
                let counts = EntryKind.tally(try hoard.diskEntries() + (originals?.diskEntries() ?? []))
                try await hoard.removeAll()
                try await originals?.removeAll()
                let parts = EntryKind.allCases.compactMap { kind in
                    counts[kind].map { "\(kind.counted($0.entries)) (\(ByteCount.human($0.bytes)))" }
                }
                let total = counts.values.reduce(0) { $0 + $1.entries }
                let shared = !remoteOptions.servers.urls.isEmpty ? "; the shared cache's namespace is emptied too" : ""
                print("removed \(Quantity.entries(total))" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")) + shared)
            }
        }
    }
}
