import Foundation
import Testing

/// One list of the system libraries: `scripts/install-deps` installs it, the README and the DocC
/// article show it, and the package's system-library targets name packages from it.
@Suite("System dependencies")
struct SystemDependenciesTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: TestFiles.repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    @Test("the README and Getting Started show exactly the libraries scripts/install-deps installs")
    func oneList() throws {
        let script = try Self.text("scripts/install-deps")
        let line = try #require(script.split(separator: "\n").first { $0.hasPrefix("libraries=(") })
        let libraries = line.dropFirst("libraries=(".count).dropLast().split(separator: " ").map(String.init)
        let command = "sudo apt-get install " + libraries.joined(separator: " ") + "\n"
        for path in ["README.md", "Sources/Hoard/Hoard.docc/GettingStarted.md"] {
            #expect(try Self.text(path).contains(command), "\(path) does not show: \(command)")
        }
        // Every apt package a system-library target names is in the list.
        let manifest = try Self.text("Package.swift")
        let named = manifest.components(separatedBy: ".apt([\"").dropFirst().compactMap { $0.split(separator: "\"").first }
        #expect(!named.isEmpty)
        for package in named {
            #expect(libraries.contains(String(package)), "Package.swift names \(package)")
        }
    }
}
