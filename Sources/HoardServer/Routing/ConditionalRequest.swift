import Foundation
import HTTPTypes

/// A request's `If-None-Match` condition, and the answer it gets: a 304 when it names the image's
/// entity tag (weak comparison, or `*`), else the image.
struct ConditionalRequest {
    /// The field's value; `nil` when the request has none.
    let ifNoneMatch: String?

    /// The image's answer: a 200 with its bytes, or a 304 with its validators.
    func response(with image: Answer) -> ImageResponse {
        let head = image.head
        let notModified = head.entityTag.map { entityTag in ifNoneMatch.map { Self.matches($0, entityTag) } ?? false } ?? false
        var headers = notModified ? head.notModifiedFields : head.fields
        if image.variesByAccept { headers.append(HTTPField(name: .vary, value: "Accept")) }
        return ImageResponse(status: notModified ? .notModified : .ok, headers: headers, body: notModified ? nil : image.bytes)
    }

    /// Whether an `If-None-Match` value names `entityTag` (weak comparison, or `*`).
    static func matches(_ condition: String, _ entityTag: String) -> Bool {
        let strong = entityTag.hasPrefix("W/") ? String(entityTag.dropFirst(2)) : entityTag
        return condition.split(separator: ",").contains { item in
            let trimmed = item.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || (trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed) == strong
        }
    }
}
