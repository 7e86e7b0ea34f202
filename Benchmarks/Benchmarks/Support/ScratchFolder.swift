import Foundation

/// Fresh folders for the disk benchmarks, all inside one folder per benchmark process.
///
/// They live under `$HOARD_BENCH_DISK_DIR` when it is set (say `/dev/shm`, to take the file system
/// out of the figures), else under the working directory: not under the system temp folder, where
/// creating a file was about 20 times slower on these machines. Suites remove them in
/// `Benchmark.teardown`.
///
/// ```swift
/// Benchmark.teardown = { ScratchFolder.removeAll() }
/// let cache = try DiskCache(directory: try ScratchFolder.make("store-1KiB"))
/// ```
public enum ScratchFolder {
    /// The environment variable that names the base folder.
    public static let environmentVariable = "HOARD_BENCH_DISK_DIR"

    /// The folder that holds this process's scratch folders: `<base>/.hoard-bench-scratch/<pid>-<uuid>`.
    public static let processFolder: URL = {
        let base =
            ProcessInfo.processInfo.environment[environmentVariable].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        return base.appendingPathComponent(".hoard-bench-scratch", isDirectory: true)
            .appendingPathComponent("\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)")
    }()

    /// Creates a new, empty folder.
    ///
    /// - Parameter label: A readable prefix for the folder's name.
    /// - Returns: The folder.
    /// - Throws: The file manager's error when the folder cannot be created.
    public static func make(_ label: String) throws -> URL {
        let folder = processFolder.appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Removes a folder made by ``make(_:)`` and everything in it; a missing folder is not an error.
    public static func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Removes this process's folder, and the shared parent too when no other process uses it.
    public static func removeAll() {
        remove(processFolder)
        _ = rmdir(processFolder.deletingLastPathComponent().path)  // only when empty
    }
}
