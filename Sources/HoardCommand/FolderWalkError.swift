import Hoard
import HoardSystem

/// Why a folder input could not be searched for images.
enum FolderWalkError: Error, Sendable, CustomStringConvertible {
    /// The folder itself could not be opened (`opendir` failed).
    case unreadable(folder: String, SystemCallError)
    /// The folder walks of this run would read more directory entries than `--max-folder-entries`.
    case budgetExhausted(limit: Int)

    var description: String {
        switch self {
        case .unreadable(let folder, let error):
            "cannot search the folder \(folder): \(SystemCallError(call: error.call, errno: error.errno))"
        case .budgetExhausted(let limit):
            "folder not searched: the folder walks of this run would read more than \(limit) directory entries (--max-folder-entries \(limit))"
        }
    }
}
