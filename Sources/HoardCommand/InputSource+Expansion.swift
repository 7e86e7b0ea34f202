import HoardOriginals
import Foundation
import HoardSystem

extension InputSource {
    /// One input of a run: the name it is reported under, its source or why it has none, and for a
    /// file found in a folder input its path below that folder (its output is named from it).
    typealias Expanded = (input: String, source: Result<InputSource, InputError>, folderPath: String?)

    /// Turns command-line inputs into sources, one per image: folders are expanded (recursively,
    /// sorted); inputs that cannot be used become failures with a reason.
    ///
    /// Every folder walk of the run reads from one budget of `maximumFolderEntries` directory
    /// entries: a folder whose walk would read more fails with
    /// ``FolderWalkError/budgetExhausted(limit:)``, as do the folder inputs after it. Each
    /// distinct folder (by the bytes of its path) is searched once: naming it again adds nothing (or its failure again), and a
    /// file two folder inputs both hold is one input. Inputs are reported with any password
    /// redacted (see ``URLCredentials``).
    ///
    /// ```swift
    /// InputSource.expand(["/photos", "https://example.com/a.jpg"], maximumFolderEntries: 1_000_000)
    /// ```
    ///
    /// - Complexity: O(*n* log *n*) in the directory entries read, at most `maximumFolderEntries`.
    static func expand(_ arguments: [String], maximumFolderEntries: Int) -> [Expanded] {
        var budget = FolderEntryBudget(limit: maximumFolderEntries)
        var searchedFolders: Set<ExactString> = []
        var folderFailures: [ExactString: InputError] = [:]
        var filesFromFolders: Set<ExactString> = []
        var expanded: [Expanded] = []
        for argument in arguments {
            let shown = URLCredentials.redactingPasswords(in: argument)
            let source: InputSource
            do throws(InputError) {
                source = try InputSource(argument)
            } catch {
                expanded.append((shown, .failure(error), nil))
                continue
            }
            guard case .file(let path) = source, LocalFile.isDirectory(path) else {
                expanded.append((shown, .success(source), nil))
                continue
            }
            if let failure = folderFailures[ExactString(path)] {
                expanded.append((shown, .failure(failure), nil))
                continue
            }
            guard searchedFolders.insert(ExactString(path)).inserted else { continue }
            do throws(FolderWalkError) {
                for file in try imageFiles(in: path, budget: &budget) where filesFromFolders.insert(ExactString(file)).inserted {
                    let below = file.dropFirst(path.hasSuffix("/") ? path.count : path.count + 1)
                    expanded.append((file, .success(.file(file)), String(below)))
                }
            } catch {
                folderFailures[ExactString(path)] = .folder(error)
                expanded.append((shown, .failure(.folder(error)), nil))
            }
        }
        return expanded
    }

    /// The image files under `folder` (an absolute, standardised path), sorted. Paths are joined
    /// as strings: `URL` work per file was most of a warm run's cost on large folders.
    private static func imageFiles(in folder: String, budget: inout FolderEntryBudget) throws(FolderWalkError)
        -> [String]
    {
        try LocalFile.files(under: folder, budget: &budget) { name in
            guard let dot = name.lastIndex(of: ".") else { return false }
            return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
        }.sorted()
    }
}
