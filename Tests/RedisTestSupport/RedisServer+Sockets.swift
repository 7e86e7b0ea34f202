// The loopback sockets RedisServer uses: a free port, and the blocking admin connection its
// `command(_:)` and readiness checks talk over. Self-contained, as RedisServer.swift is.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RedisServer {
    /// A port on 127.0.0.1 that was free a moment ago: bound with port 0, read back, released.
    public static func freePort() throws -> Int {
        let socket = openStreamSocket()
        guard socket >= 0 else {
            throw Failure.didNotStart(reason: "socket(): \(String(cString: strerror(errno)))", log: "")
        }
        defer { close(socket) }
        var address = loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else { throw Failure.didNotStart(reason: "bind(): \(String(cString: strerror(errno)))", log: "") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    package static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    package static func connectedSocket(port: Int, timeoutSeconds: Int) throws -> Int32 {
        let socket = openStreamSocket()
        guard socket >= 0 else {
            throw Failure.commandFailed(command: "connect", reason: String(cString: strerror(errno)))
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else {
            let reason = String(cString: strerror(errno))
            close(socket)
            throw Failure.commandFailed(command: "connect", reason: reason)
        }
        return socket
    }

    package static func writeAll(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    /// Reads replies from a blocking socket: enough RESP for admin commands.
    package struct ReplyReader {
        let socket: Int32
        var buffer: [UInt8] = []

        /// The next reply as text: a status, error or integer line as sent (`"+OK"`), a bulk
        /// string's contents, `"(nil)"` for a null, an array's elements one per line.
        mutating func reply(command: String) throws -> String {
            let line = try readLine(command: command)
            guard line.first == "$" || line.first == "*" else { return line }
            guard let length = Int(line.dropFirst()), length >= -1 else {
                throw Failure.commandFailed(command: command, reason: "bad length: \(line)")
            }
            if length == -1 { return "(nil)" }
            if line.first == "*" {
                return try (0..<length).map { _ in try reply(command: command) }.joined(separator: "\n")
            }
            try fill(command: command, atLeast: length + 2)
            let payload = buffer[..<length]
            buffer.removeFirst(length + 2)
            return String(decoding: payload, as: UTF8.self)
        }

        private mutating func readLine(command: String) throws -> String {
            while true {
                if let end = buffer.firstIndex(of: 0x0A), end > 0, buffer[end - 1] == 0x0D {
                    let line = String(decoding: buffer[..<(end - 1)], as: UTF8.self)
                    buffer.removeFirst(end + 1)
                    return line
                }
                try fill(command: command, atLeast: buffer.count + 1)
            }
        }

        /// Reads until the buffer holds `count` bytes.
        private mutating func fill(command: String, atLeast count: Int) throws {
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while buffer.count < count {
                let received = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                guard received > 0 else {
                    throw Failure.commandFailed(
                        command: command, reason: received == 0 ? "connection closed" : String(cString: strerror(errno))
                    )
                }
                buffer += chunk[..<received]
            }
        }
    }
}
