import AsyncHTTPClient
import Foundation
import HoardSystem

/// Why a download failed.
package enum DownloadError: Error, Sendable, CustomStringConvertible {
    case httpStatus(Int, String)
    case tooLarge(limit: Int)
    case timedOut(seconds: Double)
    case redirectLoop
    case tooManyRedirects
    /// The check refused the URL or a redirect's (a server's source policy), with why.
    case refused(String)
    case connectionRefused
    case failed(String)

    package init(_ error: any Error, timeout: Double) {
        switch error {
        case let error as HTTPClientError where error == .redirectCycleDetected: self = .redirectLoop
        case let error as HTTPClientError where error == .redirectLimitReached: self = .tooManyRedirects
        case let error as HTTPClientError
        where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout:
            self = .timedOut(seconds: timeout)
        default:
            let text = String(describing: error)
            self = text.localizedCaseInsensitiveContains("refused") ? .connectionRefused : .failed(text)
        }
    }

    package var description: String {
        switch self {
        case .httpStatus(let code, let reason): "HTTP \(code) \(reason)"
        case .tooLarge(let limit): "download is larger than the limit of \(limit) bytes"
        case .timedOut(let seconds): "timed out after \(Self.readable(seconds)) s"
        case .redirectLoop: "redirect loop"
        case .tooManyRedirects: "too many redirects"
        case .refused(let reason): reason
        case .connectionRefused: "connection refused"
        case .failed(let detail): "download failed: \(detail)"
        }
    }

    /// Seconds as typed: `1`, `0.001`, `2.5` (whole numbers without a fraction).
    private static func readable(_ seconds: Double) -> String {
        seconds == seconds.rounded() && seconds.magnitude < 1e15 ? seconds.fixed(decimals: 0) : "\(seconds)"
    }
}
