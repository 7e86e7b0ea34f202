import Foundation
import Hoard

/// `HoardDiskStress readme-shared-cache`: runs the Thumbnails article's shared cache example exactly as shown
/// (`Tests/HoardTests/ReadmeTests.swift` checks that the lines match) and prints the size of the
/// thumbnail read back, `WIDTH x HEIGHT`, or `nil`.
///
/// A child process because ``Hoard/shared`` is resolved once, from `$XDG_CACHE_HOME`, at first
/// use: the test points that at a temporary folder for this process alone. Relative paths are
/// relative to the repository, the child's working folder.
func runReadmeSharedCacheExample() async throws {
    // README shared cache example: begin
    let path = "TestImages/exif-orientation/Landscape_1.jpg"
    let key = try ThumbnailKey(file: path, size: 256)  // what `hoard thumbnails <path> --size 256` files it under
    let made = try key.thumbnail(from: Data(contentsOf: URL(fileURLWithPath: path)))  // the tool's 256 x 171
    try await Hoard.shared.store(made, forKey: key)  // encoded as the key says; the tool's next run copies it
    let thumbnail = try await Hoard.shared.retrieve(Image.self, forKey: key)  // also reads what the tool made
    // README shared cache example: end
    print(thumbnail.map { "\($0.width) x \($0.height)" } ?? "nil")
}

/// `HoardDiskStress shared-instance`: prints `Hoard.shared`'s name and folder, one per line; in a
/// child process so that the shared cache's folder is under the test's `$XDG_CACHE_HOME`, not the
/// real `~/.cache`.
func printSharedInstance() {
    print(Hoard.shared.configuration.name)
    print(Hoard.shared.directory.path)
}
