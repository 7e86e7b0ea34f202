import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The bytes every regular file under a folder takes (its length), found without following links:
/// what a cache folder costs its disk, the index and its log included.
enum FolderFootprint {
    static func byteCount(under path: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return 0 }
        var total = 0
        for name in names {
            let child = path + "/" + name
            var status = stat()
            guard lstat(child, &status) == 0 else { continue }  // gone meanwhile
            switch status.st_mode & S_IFMT {
            case S_IFREG: total += Int(status.st_size)
            case S_IFDIR: total += byteCount(under: child)
            default: break
            }
        }
        return total
    }
}
