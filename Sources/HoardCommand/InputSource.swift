import Foundation
import Hoard
import HoardOriginals
import HoardSystem

/// Where one input's bytes come from.
enum InputSource: Sendable, Hashable {
    /// An http or https URL.
    case remote(URL)
    /// A local file, by absolute path.
    case file(String)

    /// The image file extensions a folder input is searched for. The files' formats are still
    /// sniffed from their bytes: an extension only picks what a folder walk reads.
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "webp", "gif", "avif"]

    /// Parses one input: a URL with a scheme, or a path.
    init(_ argument: String) throws(InputError) {
        if argument.contains("://") {
            guard let url = URL(string: argument), let scheme = url.scheme?.lowercased() else {
                throw .invalidURL(URLCredentials.redactingPasswords(in: argument))
            }
            switch scheme {
            case "http", "https":
                guard url.host?.isEmpty == false else {
                    throw .invalidURL(URLCredentials.redactingPasswords(in: argument))
                }
                self = .remote(url)
            case "file":
                self = .file(url.standardizedFileURL.path)
            default:
                throw .unsupportedScheme(scheme)
            }
            return
        }
        let url = URL(fileURLWithPath: argument).standardizedFileURL
        guard LocalFile.exists(url.path) else { throw .noSuchFile(url.path) }
        self = .file(url.path)
    }

    /// What must never be printed: the credentials of a URL (see ``URLCredentials/secrets``).
    var secrets: [String] {
        guard case .remote(let url) = self, let credentials = URLCredentials(of: url) else { return [] }
        return credentials.secrets
    }

    /// The input as one string: the URL, or the `file://` URL of the path. A URL's user
    /// information is replaced by its SHA-256: this string is a ``ThumbnailKey``'s source, made by
    /// the library as for the keys code makes, and, hashed, the output names'.
    ///
    /// - Throws: ``InputError/unnamable(_:)`` when the system's SHA-256 fails.
    func identifier() throws(InputError) -> String {
        switch self {
        case .remote(let url):
            guard let name = ThumbnailKey.sourceName(ofRemote: url) else {
                throw .unnamable(URLCredentials.redactingPasswords(in: url.absoluteString))
            }
            return name
        case .file(let path): return ThumbnailKey.sourceName(ofFile: path)
        }
    }

    /// The fields of this input's output names (see ``OutputNaming``): the input's name (made
    /// safe) and 16 hex digits of the SHA-256 of its ``identifier()``. The name is the base name,
    /// or for a file found in a folder input its path below that folder with `-` for `/`
    /// (`Next/contents/2560x1600.jpg` gives `Next-contents-2560x1600`), so that files of one base
    /// name in different subfolders are told apart at a glance.
    ///
    /// - Parameters:
    ///   - identifier: This input's ``identifier()``, which the caller has already made for the
    ///     cache key (it costs a `URL` for a file).
    ///   - folderPath: The file's path below the folder input it was found in, if it was.
    ///   - box: The box as names spell it.
    ///   - size: The thumbnail's width and height, when known.
    ///   - fileExtension: The thumbnail's format's extension.
    /// - Throws: ``InputError/unnamable(_:)`` when the system's SHA-256 fails.
    func outputFields(
        identifier: String, folderPath: String? = nil, box: String, size: (width: Int, height: Int)?,
        extension fileExtension: String
    ) throws(InputError) -> OutputNaming.Fields {
        let base: String
        switch self {
        case .remote(let url): base = url.deletingPathExtension().lastPathComponent
        case .file(let path):
            base = folderPath.map { Self.baseName(of: $0.replacingOccurrences(of: "/", with: "-")) }
                ?? Self.baseName(of: path)
        }
        // The end of a long name: it holds the file's own name.
        let safe = String(
            base.unicodeScalars.suffix(96).map { scalar -> Character in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "-_.".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
        guard let digest = SHA256.hexDigest(Array(identifier.utf8), byteCount: 8) else {
            throw .unnamable(identifier)
        }
        return OutputNaming.Fields(
            name: safe.isEmpty || safe.hasPrefix(".") ? "image" : safe, hash: digest, box: box, width: size?.width,
            height: size?.height, ext: fileExtension)
    }

    /// The last path component without its extension, as `URL.deletingPathExtension()` gives it.
    private static func baseName(of path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }
}

/// Why an input cannot be read at all, or its thumbnail cannot be named.
enum InputError: Error, Sendable, CustomStringConvertible {
    case invalidURL(String)
    case unsupportedScheme(String)
    case noSuchFile(String)
    /// A folder input that could not be searched.
    case folder(FolderWalkError)
    /// The system's SHA-256 failed for this identifier, so no output name can be made.
    case unnamable(String)

    var description: String {
        switch self {
        case .invalidURL(let text): "not a valid URL: \(text)"
        case .unsupportedScheme(let scheme): "unsupported URL scheme \"\(scheme)\" (use http, https, file or a path)"
        case .noSuchFile(let path): "no such file or folder: \(path)"
        case .folder(let error): error.description
        case .unnamable(let identifier): "cannot name the thumbnail of \(identifier): the system's SHA-256 failed"
        }
    }
}
