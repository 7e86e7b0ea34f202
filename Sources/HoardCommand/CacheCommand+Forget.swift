import ArgumentParser
import Foundation
import Hoard
import HoardOriginals

extension CacheCommand {
    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget",
            abstract: "Forget everything the cache holds for one source: its thumbnails, original and records.",
            discussion: """
                SOURCE is a URL or a path, as given to hoard thumbnails (a file need not exist any \
                more). Every thumbnail of it (every size, format and setting, and those of earlier \
                versions of the file), its downloaded original and their records are removed; with \
                --remote, from the shared cache too, for every machine. Thumbnail files already \
                written to an --output folder are not touched. Prints each key removed.
                """)
        @Argument(help: "A URL or a path, as given to hoard thumbnails.") var source: String
        @OptionGroup var cacheOptions: CacheOptions
        @OptionGroup(title: "Shared cache") var remoteOptions: RemoteOptions

        func run() async throws {
            let name = try Self.sourceName(of: source)
            let removed = try await cacheOptions.withHoards(remote: remoteOptions) { hoard, originals in
                try await CacheRemoval.removeAll(from: [hoard, originals]) { key in
                    EntryKind.source(ofKey: key).map { $0.utf8.elementsEqual(name.utf8) } ?? false
                }
            }
            let shown = URLCredentials.redactingPasswords(in: source)
            guard !removed.isEmpty else {
                print("nothing cached for \(shown)")
                return
            }
            let counts = EntryKind.allCases.compactMap { kind -> String? in
                let count = removed.count { EntryKind(key: $0) == kind }
                return count > 0 ? kind.counted(count) : nil
            }
            print("forgot \(shown): " + counts.joined(separator: ", "))
            for key in removed { print("  " + key) }
        }

        /// The source name the tool's keys hold for `argument` (see ``InputSource/identifier()``),
        /// for a path whether or not the file exists.
        static func sourceName(of argument: String) throws -> String {
            if argument.contains("://") {
                do {
                    return try InputSource(argument).identifier()
                } catch {
                    throw ValidationError("\(error)")
                }
            }
            return ThumbnailKey.sourceName(ofFile: URL(fileURLWithPath: argument).standardizedFileURL.path)
        }
    }
}
