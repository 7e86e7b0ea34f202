import Foundation

@testable import Hoard

/// A uniquely named folder under the system's temporary directory, for one test.
///
/// ```swift
/// let folder = try TemporaryDirectory()
/// defer { folder.remove() }
/// ```
struct TemporaryDirectory: Sendable {
    let url: URL

    init(function: String = #function) throws {
        let name = "HoardDiskTests-\(function.prefix(while: { $0 != "(" }))-\(UUID().uuidString)"
        url = FileManager.default.temporaryDirectory.appending(path: name, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path(percentEncoded: false) }

    /// The cache folder inside this temporary folder.
    var cacheURL: URL { url.appending(path: "cache", directoryHint: .isDirectory) }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Every regular file under `root`, as paths relative to it.
func regularFiles(under root: URL) -> [String] {
    let rootPath = root.standardizedFileURL.path(percentEncoded: false)
    guard let enumerator = FileManager.default.enumerator(atPath: rootPath) else { return [] }
    var files: [String] = []
    while let relative = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: rootPath + "/" + relative, isDirectory: &isDirectory),
            !isDirectory.boolValue
        {
            files.append(relative)
        }
    }
    return files
}

/// The entry and temporary files a cache keeps under `root`, relative paths: every regular file
/// but the folder's marker files (`.hoard-cache` and `CACHEDIR.TAG`) and its index database.
func cacheFiles(under root: URL) -> [String] {
    regularFiles(under: root).filter {
        $0 != DiskCache.markerFileName && $0 != CacheFolder.cacheDirectoryTagFileName && !$0.hasPrefix(DiskIndex.fileName)
    }
}
