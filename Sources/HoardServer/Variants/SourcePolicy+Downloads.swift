import Foundation
import HoardOriginals
import NIOPosix

extension SourcePolicy {
    /// The check of each URL a download requests (the source and every redirect): on the
    /// allow-list, and resolving only to allowed addresses (`resolve`, on NIO's blocking-work
    /// threads). Returns the address the download connects to, one of those checked (IPv4
    /// first), so that the host is resolved once.
    func admit(
        _ url: URL, resolve: @escaping @Sendable (String) throws(ServeError) -> [IPAddress]
    ) async throws(DownloadError) -> String? {
        let prefix: Prefix?
        do {
            prefix = try self.prefix(for: .remote(url))
        } catch {
            throw .refused(error.reason)
        }
        guard let prefix, let host = URLComponents(url: url, resolvingAgainstBaseURL: false)?.host else {
            throw .refused("the URL has no host")
        }
        let addresses: [IPAddress]
        do {
            // getaddrinfo blocks: on NIO's blocking-work threads, not the cooperative pool's.
            addresses = try await NIOThreadPool.singleton.runIfActive { try resolve(host) }
        } catch {
            throw .failed("\(host) does not resolve: \(error)")
        }
        do {
            try check(addresses: addresses, for: prefix)
        } catch {
            throw .refused(error.reason)
        }
        return (addresses.first { $0.isIPv4 } ?? addresses.first)?.description
    }
}
