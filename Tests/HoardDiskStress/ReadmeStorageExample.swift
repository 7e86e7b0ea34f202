import Foundation
import Hoard

/// `HoardDiskStress readme-storage`: runs the README's storage example exactly as shown
/// (`Tests/HoardTests/ReadmeTests.swift` checks that the lines match) and prints, one per line,
/// the folder the cache used, the title read back, where the entry came from and whether it
/// expires, and what a read after the removal found.
///
/// A child process because the example uses the default folder, `$XDG_CACHE_HOME/hoard/notes`,
/// which the test points at a temporary folder for this process alone: no test writes into the
/// real `~/.cache`.
func runReadmeStorageExample() async throws {
    struct Note: Codable, Cachable { var title: String }
    // README storage example: begin
    let hoard = try Hoard(configuration: .init(name: "notes"))  // ~/.cache/hoard/notes; Hoard.shared is "default"
    try await hoard.store(Note(title: "Dune"), forKey: "note/1", expiry: .seconds(3_600))
    let cached = try await hoard.retrieve(Note.self, forKey: "note/1")  // memory, else disk
    let entry = try await hoard.entry(Note.self, forKey: "note/1")  // value, cachedAt, expiresAt, age, source
    try await hoard.remove(forKey: "note/1")
    // README storage example: end
    print(hoard.directory.path)
    print(cached?.title ?? "nil")
    print("\(entry?.source.description ?? "nil") \(entry?.expiresAt != nil)")
    print(try await hoard.retrieve(Note.self, forKey: "note/1")?.title ?? "nil")
}
