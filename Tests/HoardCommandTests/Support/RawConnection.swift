import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The C call, under a name the connection's own `send` does not hide.
private let socketSend: @Sendable (Int32, UnsafeRawPointer?, Int, Int32) -> Int = { send($0, $1, $2, $3) }

/// A TCP connection to a loopback port made with plain sockets, for clients no HTTP library would
/// be: one that sends nothing, a head a byte at a time, or a body that never ends.
final class RawConnection {
    private let descriptor: Int32
    /// When the connection was made.
    let opened = ContinuousClock.now

    /// Connects to `127.0.0.1:port`; `nil` when the connection cannot be made.
    init?(port: Int) {
        #if canImport(Glibc)
            let kind = Int32(SOCK_STREAM.rawValue)
        #else
            let kind = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, kind, 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Sends `text`; `false` when the server has closed the connection.
    @discardableResult
    func send(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { socketSend(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Whether the server has closed the connection: a read finds its end (or a reset) within
    /// `milliseconds`. Bytes the server sent first (an answer) are read and skipped.
    func isClosed(waitingUpTo milliseconds: Int32) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int64(milliseconds))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return true }
        }
    }

    /// The bytes the server sends within `milliseconds` (until it closes or goes quiet).
    func read(waitingUpTo milliseconds: Int32) -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&poller, 1, milliseconds) > 0 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
            if received.count > 4 && String(decoding: received, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// The heads of the next `count` answers (each read with its `Content-Length` body), or fewer
    /// when the server closes or sends nothing for `milliseconds`.
    func heads(count: Int, waitingUpTo milliseconds: Int32) -> [String] {
        var received: [UInt8] = []
        var heads: [String] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while heads.count < count {
            // Every whole answer received so far is taken off the front.
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            if let end = received.indices.first(where: { received[$0...].starts(with: separator) }) {
                let head = String(decoding: received[..<end], as: UTF8.self)
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                if received.count >= end + 4 + length {
                    heads.append(head)
                    received.removeFirst(end + 4 + length)
                    continue
                }
            }
            guard poll(&poller, 1, milliseconds) > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return heads
    }
}
