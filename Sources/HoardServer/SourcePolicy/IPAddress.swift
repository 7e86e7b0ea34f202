#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as bytes, and the kind of network it belongs to: what the server checks
/// a source's resolved addresses against before it connects.
///
/// IPv4-mapped, NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) IPv6 addresses are classed by the IPv4
/// address they carry, so `::ffff:127.0.0.1` is loopback.
///
/// ```swift
/// IPAddress("169.254.169.254")?.kind  // .metadata
/// IPAddress("::1")?.kind              // .loopback
/// ```
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// The network an address belongs to.
    public enum Kind: String, Sendable, CaseIterable {
        /// Anywhere on the internet.
        case global
        /// This machine: `127.0.0.0/8`, `::1`.
        case loopback
        /// A private network: `10/8`, `172.16/12`, `192.168/16`, `100.64/10` (carrier NAT), `fc00::/7`.
        case `private`
        /// The link: `169.254/16`, `fe80::/10`.
        case linkLocal = "link-local"
        /// A cloud instance's metadata service: `169.254.169.254`, `fd00:ec2::254`, `100.100.100.200`,
        /// `168.63.129.16`.
        case metadata
        /// Not a host: `0.0.0.0/8`, `::`, multicast, broadcast, reserved and documentation ranges.
        case reserved
    }

    /// The address's 4 or 16 bytes, in network order.
    public let bytes: [UInt8]

    /// The address `text` spells in standard notation (dotted quad or IPv6), or `nil`.
    ///
    /// Only the four-part decimal form of IPv4 is read here; the resolver reads the others
    /// (`2130706433`, `0177.0.0.1`), and the server classes what it resolves to.
    public init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// The address of `bytes` (4 or 16 of them), or `nil` for another count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The address in standard notation.
    /// Whether this is an IPv4 address.
    var isIPv4: Bool { bytes.count == 4 }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = bytes.count == 4 ? AF_INET : AF_INET6
        let written = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The network the address belongs to.
    public var kind: Kind {
        bytes.count == 4 ? Self.kind(ofV4: bytes) : kindOfV6
    }

    private var kindOfV6: Kind {
        let b = bytes
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return Self.kind(ofV4: Array(b[12...])) }
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && b[4..<12].allSatisfy({ $0 == 0 }) {
            return Self.kind(ofV4: Array(b[12...]))
        }
        if b[0] == 0x20 && b[1] == 0x02 { return Self.kind(ofV4: Array(b[2..<6])) }
        // IPv4-translated ::ffff:0:a.b.c.d (SIIT).
        if b[0..<8].allSatisfy({ $0 == 0 }) && b[8] == 0xFF && b[9] == 0xFF && b[10] == 0 && b[11] == 0 {
            return Self.kind(ofV4: Array(b[12...]))
        }
        // Local-use NAT64 (64:ff9b:1::/48) and Teredo (2001::/32) reach networks the server cannot see.
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B && b[4] == 0 && b[5] == 1 { return .reserved }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0 { return .reserved }
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? .loopback : .reserved }
        // IPv4-compatible (deprecated) ::a.b.c.d.
        if b[0..<12].allSatisfy({ $0 == 0 }) { return .reserved }
        if self == IPAddress("fd00:ec2::254") { return .metadata }
        if b[0] & 0xFE == 0xFC { return .private }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .private }  // site-local, deprecated
        if b[0] == 0xFF { return .reserved }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return .reserved }  // documentation
        if b[0] == 0x01 && b[1...7].allSatisfy({ $0 == 0 }) { return .reserved }  // discard prefix
        return .global
    }

    private static func kind(ofV4 b: [UInt8]) -> Kind {
        switch (b[0], b[1], b[2], b[3]) {
        case (169, 254, 169, 254), (100, 100, 100, 200), (168, 63, 129, 16): .metadata
        case (127, _, _, _): .loopback
        case (10, _, _, _), (192, 168, _, _): .private
        case (172, let second, _, _) where (16...31).contains(second): .private
        case (100, let second, _, _) where (64...127).contains(second): .private
        case (169, 254, _, _): .linkLocal
        case (0, _, _, _), (192, 0, 0, _), (192, 0, 2, _), (192, 88, 99, _), (198, 51, 100, _), (203, 0, 113, _):
            .reserved
        case (198, let second, _, _) where second == 18 || second == 19: .reserved
        case (let first, _, _, _) where first >= 224: .reserved
        default: .global
        }
    }
}
