/// How `--name` turns a thumbnail into a file name: a template of literal text and placeholders.
///
/// ```swift
/// let naming = OutputNaming(template: "{name}-{width}x{height}.{ext}")!
/// naming.name(.init(name: "photo", hash: "1a2b", box: "256", width: 256, height: 171, ext: "jpg"))  // "photo-256x171.jpg"
/// ```
///
/// Invariant: a template is accepted only when every placeholder is known and it holds no `/`, so
/// every name it makes is one file name in the output folder.
struct OutputNaming: Sendable, Equatable {
    /// What a name is made of.
    struct Fields {
        /// The input's own name, made safe (letters, digits, `-_.`).
        let name: String
        /// The digest of the input's identifier: two inputs never share it.
        let hash: String
        /// The box and how the image meets it: `256`, `256x128`, `256x128-fill`, `256x128-fill-ne`.
        let box: String
        /// The thumbnail's size; `nil` when not known (an input that failed).
        let width: Int?
        let height: Int?
        /// The format's extension.
        let ext: String
    }

    /// `{name}-{hash}-{box}.{ext}`: distinct for every input and every box.
    static let defaultTemplate = "{name}-{hash}-{box}.{ext}"

    static let placeholders: Set<String> = ["name", "hash", "box", "width", "height", "ext"]

    let template: String
    /// Whether names need the thumbnail's size, which a failed input does not have.
    let needsSize: Bool
    /// Whether every input has names of its own (the template holds `{hash}`): only then may a
    /// failed input's earlier outputs be removed by name.
    let isPerInput: Bool

    /// The naming of `template`, or `nil` for an unknown placeholder, an unclosed brace, a `/`, NUL,
    /// or an empty template.
    init?(template: String) {
        guard !template.isEmpty, template.utf8.count <= 200, !template.contains("/"), !template.contains("\0") else {
            return nil
        }
        var rest = Substring(template)
        var used: Set<String> = []
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { return nil }
            let placeholder = String(rest[rest.index(after: open)..<close])
            guard Self.placeholders.contains(placeholder) else { return nil }
            used.insert(placeholder)
            rest = rest[rest.index(after: close)...]
        }
        guard !rest.contains("}") else { return nil }
        self.template = template
        needsSize = used.contains("width") || used.contains("height")
        isPerInput = used.contains("hash")
    }

    /// The file name for `fields`; `nil` when it needs a size `fields` lacks, or is not one file
    /// name (empty, `.`, `..`, over 255 bytes).
    func name(_ fields: Fields) -> String? {
        if needsSize, fields.width == nil || fields.height == nil { return nil }
        let values = [
            "name": fields.name, "hash": fields.hash, "box": fields.box, "width": fields.width.map(String.init) ?? "",
            "height": fields.height.map(String.init) ?? "", "ext": fields.ext,
        ]
        var made = template
        for (placeholder, value) in values { made = made.replacingOccurrences(of: "{\(placeholder)}", with: value) }
        guard !made.isEmpty, made != ".", made != "..", made.utf8.count <= 255 else { return nil }
        return made
    }
}
