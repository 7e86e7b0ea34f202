import CHoardSupport
import Foundation

extension Data {
    /// A copy of `bytes`, a payload inside a record that was read whole (from the index, from
    /// Redis), made by `hoard_copy_bytes` rather than `memcpy`.
    ///
    /// The payload starts at the record's header length, so source and copy sit at an arbitrary
    /// offset from each other, and glibc's `memcpy` hits a slow path on AMD CPUs for some of those
    /// offsets (a 64 KiB copy at 3.4 GB/s instead of 57; see `copy.c`).
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
}
