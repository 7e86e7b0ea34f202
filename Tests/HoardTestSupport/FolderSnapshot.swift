import Foundation

/// Everything under a folder, as `lstat` sees it: each path (relative to the folder) with its
/// kind and, for a file, its bytes; for a link, its target. Links are recorded, never followed.
///
/// Tests take one before and one after a command that must not touch what the cache did not
/// make, and compare them.
///
/// ```swift
/// let before = try FolderSnapshot(of: victim)
/// try cache.removeAll()
/// #expect(try FolderSnapshot(of: victim) == before)
/// ```
public struct FolderSnapshot: Equatable, Sendable, CustomStringConvertible {
    /// What one path is.
    public enum Item: Equatable, Sendable {
        case file(Data)
        case folder
        case link(String)
        case other
    }

    /// The items by relative path.
    public var items: [String: Item]

    /// Records everything under `root` (which itself may be a link to a folder).
    ///
    /// - Throws: what `FileManager` throws for an unreadable folder or file.
    public init(of root: URL) throws {
        items = [:]
        try record(root.path(percentEncoded: false), relative: "")
    }

    /// The snapshot without the paths `exclude` accepts (what the cache itself made).
    public func filter(excluding exclude: (String) -> Bool) -> FolderSnapshot {
        var copy = self
        copy.items = items.filter { !exclude($0.key) }
        return copy
    }

    public var description: String {
        items.keys.sorted().map { path -> String in
            switch items[path] {
            case .file(let data): "\(path) (\(data.count) bytes)"
            case .folder: "\(path)/"
            case .link(let target): "\(path) -> \(target)"
            case .other, nil: "\(path) (special)"
            }
        }.joined(separator: "\n")
    }

    private mutating func record(_ folder: String, relative: String) throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() {
            let path = folder + "/" + name
            let key = relative.isEmpty ? name : relative + "/" + name
            let type = try FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
            switch type {
            case .typeDirectory?:
                items[key] = .folder
                try record(path, relative: key)
            case .typeRegular?:
                // An empty file (the cache's `fetch-leases`) is read as no bytes without Foundation:
                // its reader leaks the 4 KiB buffer it allocates for a file of size 0.
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
                items[key] = .file(size == 0 ? Data() : try Data(contentsOf: URL(filePath: path)))
            case .typeSymbolicLink?:
                items[key] = .link(try FileManager.default.destinationOfSymbolicLink(atPath: path))
            default:
                items[key] = .other
            }
        }
    }
}
