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
            namespace, and put, remove and clear act on the shared cache too: a value removed or \
            cleared there is gone for every machine (clear also empties their local caches when \
            they next look). list, get and prune see the local cache only.
            """,
        subcommands: [Stats.self, List.self, Get.self, Put.self, Remove.self, Prune.self, Clear.self]
    )
}

extension CacheCommand {
    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "stats",
            abstract: "Entries, bytes and the limit; with --remote, each Redis server's values, leases and memory.")
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions

        func run() async throws {
            // The servers first: with --remote-required, one that is down fails before anything is printed.
            let tier = try await remoteOptions.openTier(logger: ToolLogHandler.logger(label: "Hoard.redis"))
            let statuses = await tier?.serverStatus() ?? []
            await tier?.shutdown()
            let hoard = try cacheOptions.openHoard()
            // Both from the index: expired entries count until a trim or `prune` removes them.
            let (count, bytes) = (try hoard.diskEntryCount(), try hoard.diskSize())
            print("directory: \(hoard.directory.path)")
            print("entries:   \(count)")
            print("bytes:     \(bytes)")
            print("limit:     \(hoard.configuration.diskSizeLimit) (\(cacheOptions.cacheLimit) MiB)")
            print("counters:  hits and misses are not kept across runs")
            guard let tier else { return }
            print(
                "remote:    namespace \(tier.configuration.namespace), \(statuses.count) server\(statuses.count == 1 ? "" : "s")"
            )
            for status in statuses { print("  " + Self.describe(status)) }
        }

        /// One server's line: `127.0.0.1:6379/0: reachable, 24 values, 0 leases, used memory
        /// 1048576 bytes, maxmemory 0 (no limit), policy noeviction`.
        static func describe(_ status: RedisServerStatus) -> String {
            guard status.isReachable else { return "\(status.server): unreachable" }
            var fields = ["reachable", "\(status.valueCount) values", "\(status.leaseCount) leases"]
            if let used = status.usedMemoryBytes { fields.append("used memory \(used) bytes") }
            if let maximum = status.maximumMemoryBytes {
                fields.append("maxmemory \(maximum)" + (maximum == 0 ? " (no limit)" : " bytes"))
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
            let now = Date()
            // One write per 64 KiB of lines rather than one locked `print` per line: a list of 100,000
            // entries is mostly output.
            var output: [UInt8] = []
            output.reserveCapacity(1 << 16)
            for entry in try cacheOptions.openHoard().diskEntries().sorted(by: { $0.key < $1.key }) {
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
            guard let (_, bytes) = try cacheOptions.openHoard().storedBytes(forKey: key) else {
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

        /// The largest file `put` reads: it is read whole into memory.
        static let maximumByteCount = 1 << 30

        func run() async throws {
            let data: Data
            do {
                data = try LocalFile.read(file, maximumByteCount: Self.maximumByteCount)
            } catch {
                throw RunFailure("cannot read \(file): \(error.localizedDescription)")
            }
            try await cacheOptions.withHoard(remote: remoteOptions) { try await $0.store(data, forKey: key) }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove the value under a key, or every value whose key starts with a prefix.",
            discussion: """
                --prefix reads every entry's header (a scan of the cache folder), for example to drop \
                every thumbnail and the original of one URL: --prefix "thumbnail/v3 https://example.com/a.jpg".
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
            try await cacheOptions.withHoard(remote: remoteOptions) { hoard in
                if let prefix {
                    let removed = try await hoard.removeAll { $0.hasPrefix(prefix) }
                    print("removed \(removed) entries")
                } else if let key {
                    try await hoard.remove(forKey: key)
                }
            }
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune", abstract: "Remove expired entries and trim to the limit.")
        @OptionGroup var cacheOptions: CacheOptions

        func run() throws {
            let hoard = try cacheOptions.openHoard()
            let before = try hoard.diskSize()
            let expired = try hoard.prune()
            let after = try hoard.diskSize()
            print(
                "removed \(expired) expired entries; \(before) -> \(after) bytes (limit \(hoard.configuration.diskSizeLimit))"
            )
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clear", abstract: "Remove every entry (with --remote, in the shared cache too).")
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions

        func run() async throws {
            try await cacheOptions.withHoard(remote: remoteOptions) { try await $0.removeAll() }
        }
    }
}
