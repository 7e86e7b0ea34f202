import Foundation

@testable import HoardCore

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
/// but the folder's marker files (`.hoard-cache` and `CACHEDIR.TAG`), its index database and its
/// space reserve.
func cacheFiles(under root: URL) -> [String] {
    regularFiles(under: root).filter {
        $0 != DiskCache.markerFileName && $0 != CacheFolder.cacheDirectoryTagFileName && !$0.hasPrefix(DiskIndex.fileName)
            && $0 != SpaceReserve.fileName
    }
}
