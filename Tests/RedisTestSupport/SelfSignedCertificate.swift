import Foundation

/// A self-signed certificate for `localhost` made with the openssl command-line tool, valid
/// for one day, in a temporary folder removed by ``remove()``.
package struct SelfSignedCertificate {
    /// The certificate (PEM); also its own CA.
    package let certificateFile: String
    /// Its private key (PEM).
    package let keyFile: String
    package let folder: URL

    /// The openssl executable, if installed.
    package static let opensslPath: String? = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Makes a certificate with `openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost`.
    ///
    /// - Throws: When openssl is missing or fails (with its output).
    package init() throws {
        guard let openssl = Self.opensslPath else { throw CertificateError(reason: "openssl not found") }
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hoard-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        certificateFile = folder.appendingPathComponent("certificate.pem").path
        keyFile = folder.appendingPathComponent("key.pem").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: openssl)
        process.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-keyout", keyFile,
            "-out", certificateFile,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CertificateError(reason: "openssl exited with \(process.terminationStatus): \(text)")
        }
    }

    package func remove() {
        try? FileManager.default.removeItem(at: folder)
    }

    package struct CertificateError: Error, CustomStringConvertible {
        var reason: String
        package var description: String { "cannot make a self-signed certificate: \(reason)" }
    }
}
