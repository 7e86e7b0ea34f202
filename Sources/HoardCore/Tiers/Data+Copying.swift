import CHoardSupport
import Foundation

extension Data {
    /// A copy of `bytes`, a payload inside a record that was read whole (from the index, from
    /// Redis), made by `hoard_copy_bytes` rather than `memcpy`.
    ///
    /// The payload starts at the record's header length, so source and copy sit at an arbitrary
    /// offset from each other, and glibc's `memcpy` hits a slow path on AMD CPUs for some of those
    /// offsets (see `copy.c`; the figures are in the DocC article "Measurements behind the design",
    /// "Figures behind the source's choices").
    ///
    /// - Complexity: O(n) in the length of `bytes`.
    init(copyingPayload bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, !bytes.isEmpty, let memory = malloc(bytes.count) else {
            // Empty, or no memory (where Foundation's own copy stops the process the same way).
            self.init(bytes)
            return
        }
        hoard_copy_bytes(memory, source, bytes.count)
        self.init(bytesNoCopy: memory, count: bytes.count, deallocator: .free)
    }

    /// The bytes from `index` on, as a `Data` whose indices start at 0: from
    /// ``shortestSharedByteCount`` bytes on over this value's storage (which the new value keeps
    /// alive), shorter ones copied. Only for bytes nothing else writes to: writing to either value
    /// writes to the shared storage.
    func rebased(from index: Index) -> Data {
        let count = endIndex - index
        guard count >= Self.shortestSharedByteCount else { return Data(self[index...]) }
        return withUnsafeBytes { buffer in
            // A `Data` this long keeps its bytes in a heap buffer that lives as long as its storage.
            guard let base = buffer.baseAddress else { return Data(self[index...]) }
            return Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base + (index - startIndex)), count: count,
                deallocator: .custom { _, _ in withExtendedLifetime(self) {} })
        }
    }

    /// The shortest bytes ``rebased(from:)`` shares instead of copying: well past the bytes a `Data`
    /// keeps inline, and where a copy starts to cost more than the shared storage's bookkeeping.
    static let shortestSharedByteCount = 256
}
