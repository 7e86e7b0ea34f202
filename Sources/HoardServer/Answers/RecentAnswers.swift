import Foundation
import Hoard
import HoardSystem
import NIOCore

/// The server's memo of recent answers, by cache key: what the cache's memory tier cannot hold.
/// That tier keeps decoded values, while a variant is served as its encoded bytes, which the
/// manager reads from its byte tiers on every request; this memo keeps those bytes as the buffer
/// every connection writes, with their head (entity tag, fields), so a warm request costs no disk
/// read, no copy and no hash.
///
/// Invariant: the answers' bytes total at most ``ServerConfiguration/memoryBytes`` (each kept at most
/// a minute, so that a removal made elsewhere or a changed origin goes unseen here no longer), and
/// the heads of answers read again from the cache stay within their own small bound
/// (``AnswerHeads``): an answer read again is not hashed again unless its entry changed.
final class RecentAnswers: Sendable {
    /// Answers with their bytes; `nil` when the server keeps none in memory.
    private let answers: MemoryCache<String, Answer>?
    /// The heads of answers, also of those whose bytes are not (or no longer) held.
    let heads: AnswerHeads

    /// A memo holding up to `byteLimit` bytes of answers (0: none), whose answers carry
    /// `cacheControl`.
    init(byteLimit: Int, cacheControl: String) {
        heads = AnswerHeads(byteLimit: 8 << 20, cacheControl: cacheControl)
        // A short expiry bounds how long a removal made elsewhere (another machine, `hoard cache
        // forget`) or a changed origin goes unseen here.
        answers =
            byteLimit > 0
            ? try? MemoryCache(configuration: .init(costLimit: byteLimit, defaultExpiry: .seconds(60))) : nil
    }

    /// The remembered answer under `key`, marked as varying by `Accept` or not (`f:webp` and
    /// `f:auto` for a WebP client share a key; only the latter varies).
    func answer(forKey key: String, variesByAccept: Bool) -> Answer? {
        guard var answer = answers?.value(forKey: key) else { return nil }
        answer.variesByAccept = variesByAccept
        return answer
    }

    /// The answer of `bytes`, stored under `key` at `cachedAt` (read or made), remembered.
    func remember(_ bytes: Data, cachedAt: Date, forKey key: String, variesByAccept: Bool) -> Answer {
        let answer = Answer(
            bytes: ByteBuffer(data: bytes), head: heads.head(forKey: key, cachedAt: cachedAt, bytes: bytes),
            variesByAccept: variesByAccept)
        try? answers?.setValue(answer, forKey: key, cost: bytes.count)
        return answer
    }
}
