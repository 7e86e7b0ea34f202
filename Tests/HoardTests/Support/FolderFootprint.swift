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

    /// The largest regular files directly in a folder, with their lengths: what a failed bound prints.
    static func largestFiles(under path: String, count: Int = 6) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        let sized = names.compactMap { name -> (String, Int)? in
            var status = stat()
            guard lstat(path + "/" + name, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
            return (name, Int(status.st_size))
        }
        return sized.sorted { $0.1 > $1.1 }.prefix(count).map { "\($0.0) \($0.1)" }
    }
}
