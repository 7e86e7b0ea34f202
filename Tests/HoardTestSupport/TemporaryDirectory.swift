import Foundation


/// A uniquely named folder under the system's temporary directory, for one test.
///
/// ```swift
/// let folder = try TemporaryDirectory()
/// defer { folder.remove() }
/// ```
public struct TemporaryDirectory: Sendable {
    /// The folder.
    public let url: URL

    /// Creates the folder, named after the calling test.
    public init(function: String = #function) throws {
        let name = "HoardTests-\(function.prefix(while: { $0 != "(" }))-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appending(path: name, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The folder's path.
    public var path: String { url.path(percentEncoded: false) }

    /// The cache folder inside this temporary folder.
    public var cacheURL: URL { url.appending(path: "cache", directoryHint: .isDirectory) }

    /// A subfolder's URL, not created (a cache makes its own folder): one "machine"'s disk, say.
    public func url(for name: String) -> URL {
        url.appending(path: name, directoryHint: .isDirectory)
    }

    /// Removes the folder and everything in it.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
