import HoardSystem

/// The output names the inputs of one run have written: a name another input of the run already
/// wrote is refused, so that a `--name` template without `{hash}` cannot make one input's
/// thumbnail silently replace another's.
///
/// Invariant: each name belongs to the first input that claimed it, for the whole run.
final class OutputClaims: Sendable {
    private let owners = Lock<[String: String]>([:])

    /// Whether an input other than `input` claimed `name` in this run.
    func isClaimed(_ name: String, byOtherThan input: String) -> Bool {
        owners.withLock { owners in owners[name].map { $0 != input } ?? false }
    }

    /// Claims `name` for `input`.
    ///
    /// - Throws: ``RunFailure`` when another input of this run claimed it first.
    func claim(_ name: String, for input: String) throws {
        let owner = owners.withLock { owners in
            if let owner = owners[name] { return owner }
            owners[name] = input
            return input
        }
        guard owner == input else {
            throw RunFailure("the output name \(name) is also \(owner)'s in this run: put {hash} in --name")
        }
    }
}
