import Foundation

/// A new folder under the system's temporary folder for one test, removed by ``remove()``.
struct ScratchFolder: Sendable {
    let url: URL

    init(function: String = #function) throws {
        let name = "HoardRedisTests-\(function.prefix(while: { $0 != "(" }))-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appending(path: name, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A cache folder inside this one (not created: the cache makes it).
    func cache(_ name: String) -> URL {
        url.appending(path: name, directoryHint: .isDirectory)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
