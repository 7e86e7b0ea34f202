import Foundation
import HTTPTypes
import Hoard
import NIOCore

/// What an image request is answered with: the bytes as every connection writes them, and their head.
struct Answer: Sendable {
    /// The encoded image, as it is written to every connection.
    let bytes: ByteBuffer
    /// Its entity tag and fields.
    let head: Head
    var variesByAccept: Bool

    /// An answer's entity tag and fields, made once for its bytes.
    struct Head: Sendable {
        /// From the content; `nil` when the system's SHA-256 failed (then no 304 is possible).
        let entityTag: String?
        /// A 200's fields but `Vary`: `ETag`, `Cache-Control`, `Content-Type`,
        /// `X-Content-Type-Options` and `Content-Length`.
        let fields: HTTPFields
        /// A 304's fields but `Vary`: the validators and caching fields of the 200 it stands
        /// for, and no representation fields (RFC 9110, 15.4.5).
        let notModifiedFields: HTTPFields

        init(bytes: Data, entityTag: String?, cacheControl: String) {
            self.entityTag = entityTag
            var fields = HTTPFields()
            if let entityTag { fields[.eTag] = entityTag }
            fields[.cacheControl] = cacheControl
            notModifiedFields = fields + [HTTPField(name: .contentLength, value: "0")]
            // Images by their bytes; `/info`'s JSON (the only other thing answered) by its brace.
            fields[.contentType] =
                ImageFormat(sniffing: bytes)?.mediaType
                ?? (bytes.first == UInt8(ascii: "{") ? "application/json" : "application/octet-stream")
            fields[.xContentTypeOptions] = "nosniff"
            fields[.contentLength] = String(bytes.count)
            self.fields = fields
        }
    }
}
