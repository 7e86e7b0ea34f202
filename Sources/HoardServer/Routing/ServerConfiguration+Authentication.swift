extension ServerConfiguration {
    /// Checks an image path's signature (first: an unauthenticated client learns nothing about
    /// options or presets) and returns what the client, by its `Accept`, takes.
    ///
    /// - Throws: ``ServeError/signatureRefused(_:)``; ``ServeError/badOptions(_:)`` for a path with
    ///   no signature segment.
    func authenticate(_ path: String, accept: String?) throws(ServeError) -> FormatNegotiation {
        let (signature, signedPart) = try ImagePath.signature(of: path)
        guard let signature else {
            guard allowsUnsigned else { throw .signatureRefused("unsigned URLs are not allowed") }
            return FormatNegotiation(accept: accept)
        }
        guard let signer else { throw .signatureRefused("no signing key is configured") }
        try signer.verify(signature: signature, signedPart: signedPart)
        return FormatNegotiation(accept: accept)
    }
}
