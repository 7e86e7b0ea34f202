import Foundation

/// Executables of this package, found next to the running test bundle (SwiftPM puts every
/// product of a build in one folder).
public enum BuiltProduct {
    /// The executable named `name`, or `nil` when it has not been built.
    public static func url(named name: String) -> URL? {
        var folders: [URL] = []
        if let first = CommandLine.arguments.first {
            folders.append(URL(filePath: first).deletingLastPathComponent())
        }
        if let main = Bundle.main.executableURL { folders.append(main.deletingLastPathComponent()) }
        for bundle in Bundle.allBundles where bundle.bundleURL.pathExtension == "xctest" {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return folders.lazy
            .map { $0.appending(path: name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path(percentEncoded: false)) }
    }
}
