import Hoard

/// What the tool keeps under a key, read from the key's first word (see ``ThumbnailSettings``).
enum EntryKind: String, CaseIterable, Sendable {
    case thumbnail = "thumbnails"
    case original = "originals"
    case originalRecord = "original records"
    case thumbnailOrigin = "thumbnail origins"
    case other = "other values"

    /// `count` entries of this kind: `1 thumbnail`, `2 other values`.
    func counted(_ count: Int) -> String {
        Quantity.of(count, String(rawValue.dropLast()), plural: rawValue)
    }

    /// The kind of the entry under `key`.
    init(key: String) {
        let word = key.utf8.prefix { $0 != UInt8(ascii: " ") }
        self =
            if word.starts(with: "thumbnail/v".utf8) {
                .thumbnail
            } else if word.starts(with: "original/v".utf8) {
                .original
            } else if word.elementsEqual("original-record/v1".utf8) {
                .originalRecord
            } else if word.elementsEqual("thumbnail-origin/v1".utf8) {
                .thumbnailOrigin
            } else {
                .other
            }
    }

    /// How many of `entries` are of each kind, and their payload bytes.
    static func tally(_ entries: [DiskCache.EntryInfo]) -> [EntryKind: (entries: Int, bytes: Int)] {
        var counts: [EntryKind: (entries: Int, bytes: Int)] = [:]
        for entry in entries {
            let kind = EntryKind(key: entry.key)
            counts[kind, default: (0, 0)].entries += 1
            counts[kind, default: (0, 0)].bytes += entry.payloadByteCount
        }
        return counts
    }

    /// The source a tool key names (a URL, or a file's `file://` URL), compared as bytes, or `nil`
    /// for a key the tool did not make.
    static func source(ofKey key: String) -> Substring? {
        let words = key.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        switch EntryKind(key: key) {
        case .thumbnail, .original, .originalRecord: return words.count > 1 ? words[1] : nil
        case .thumbnailOrigin: return words.count > 2 ? words[2] : nil
        case .other: return nil
        }
    }
}
