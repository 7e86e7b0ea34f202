import Foundation
import HoardServer
import Testing

@Suite("SourcePolicy")
struct SourcePolicyTests {
    @Test("address kinds", arguments: [
        ("8.8.8.8", IPAddress.Kind.global), ("2606:4700::1111", .global), ("127.0.0.1", .loopback),
        ("127.255.0.9", .loopback), ("::1", .loopback), ("::ffff:127.0.0.1", .loopback), ("10.1.2.3", .private),
        ("172.16.0.1", .private), ("172.31.255.255", .private), ("172.32.0.1", .global), ("192.168.1.1", .private),
        ("100.64.0.1", .private), ("fd12::1", .private), ("169.254.1.1", .linkLocal), ("fe80::1", .linkLocal),
        ("169.254.169.254", .metadata), ("::ffff:169.254.169.254", .metadata), ("fd00:ec2::254", .metadata),
        ("100.100.100.200", .metadata), ("0.0.0.0", .reserved), ("::", .reserved), ("224.0.0.1", .reserved),
        ("255.255.255.255", .reserved), ("ff02::1", .reserved), ("64:ff9b::7f00:1", .loopback),
        ("2002:7f00:1::1", .loopback), ("2002:0808:0808::1", .global), ("192.0.2.1", .reserved),
        ("::ffff:0:127.0.0.1", .loopback), ("::ffff:0:10.0.0.1", .private), ("64:ff9b:1::a00:1", .reserved),
        ("2001:0:4136:e378::1", .reserved), ("192.88.99.1", .reserved), ("168.63.129.16", .metadata),
    ])
    func kinds(text: String, kind: IPAddress.Kind) throws {
        let address = try #require(IPAddress(text))
        #expect(address.kind == kind)
        #expect(IPAddress(address.description) == address)
    }

    @Test("prefixes match by scheme, host, port and path boundary, not by text")
    func prefixes() throws {
        let policy = try SourcePolicy(allowing: ["https://images.example/photos/", "http://LOCALHOST:8080/img"])
        let allowed = ["https://images.example/photos/a.jpg", "https://IMAGES.example/photos/x/y.png",
                       "https://images.example:443/photos/a.jpg", "http://localhost:8080/img/a.jpg",
                       "http://localhost:8080/img"]
        for text in allowed {
            #expect(throws: Never.self) { try policy.prefix(for: try ImageSource(parsing: text)) }
        }
        let refused = ["https://images.example.evil/photos/a.jpg", "https://images.example/photosx/a.jpg",
                       "http://images.example/photos/a.jpg", "https://images.example:8443/photos/a.jpg",
                       "https://images.example/other/a.jpg", "http://localhost:8081/img/a.jpg",
                       "http://localhost:8080/imgs/a.jpg", "https://evil.example/photos/a.jpg",
                       // Ways out of the prefix's folder as an origin may read the path.
                       "https://images.example/photos/..;/admin/x.png", "https://images.example/photos/..%2fsecret",
                       "https://images.example/photos/%2e%2e/x.png", "https://images.example/photos/a%5C..%5Cb.png",
                       "https://images.example/photos/.%2E/x.png"]
        for text in refused {
            #expect(throws: ServeError.self) { try policy.prefix(for: try ImageSource(parsing: text)) }
        }
        #expect(throws: ServeError.sourceRefused("local files are not served (no --root)")) {
            try policy.prefix(for: .local(["a.jpg"]))
        }
        for bad in ["ftp://a.example/", "https://user@a.example/", "https://a.example/?q=1", "nonsense",
                    "https://a.example/x/../y"] {
            #expect(throws: ServeError.self) { try SourcePolicy(allowing: [bad]) }
        }
    }

    @Test("resolved addresses: loopback only under a loopback prefix; private, link-local and metadata only when allowed")
    func addresses() throws {
        let policy = try SourcePolicy(allowing: ["http://127.0.0.1:9000/", "https://images.example/"])
        let loopbackPrefix = try #require(try policy.prefix(for: ImageSource(parsing: "http://127.0.0.1:9000/a.jpg")))
        let publicPrefix = try #require(try policy.prefix(for: ImageSource(parsing: "https://images.example/a.jpg")))
        try policy.check(addresses: [IPAddress("127.0.0.1")!], for: loopbackPrefix)
        for text in ["127.0.0.1", "::1", "10.0.0.1", "169.254.169.254", "fe80::1", "0.0.0.0"] {
            #expect(throws: ServeError.self) { try policy.check(addresses: [IPAddress(text)!], for: publicPrefix) }
        }
        // One refused address among several refuses the host (a resolver could pick either).
        #expect(throws: ServeError.self) {
            try policy.check(addresses: [IPAddress("8.8.8.8")!, IPAddress("10.0.0.1")!], for: publicPrefix)
        }
        #expect(throws: ServeError.self) { try policy.check(addresses: [], for: publicPrefix) }
        let permissive = try SourcePolicy(allowing: ["https://images.example/"], allowedKinds: [.private])
        let prefix = try #require(try permissive.prefix(for: ImageSource(parsing: "https://images.example/a.jpg")))
        try permissive.check(addresses: [IPAddress("10.0.0.1")!], for: prefix)
        #expect(throws: ServeError.self) { try permissive.check(addresses: [IPAddress("169.254.169.254")!], for: prefix) }
    }

    @Test("decimal, octal and hex IPv4 forms and bracketed IPv6 resolve to the address they mean")
    func resolverForms() throws {
        for host in ["2130706433", "0177.0.0.1", "0x7f.0.0.1", "127.1", "127.0.0.1"] {
            #expect(try SourcePolicy.resolve(host: host) == [IPAddress("127.0.0.1")!], "\(host)")
        }
        #expect(try SourcePolicy.resolve(host: "[::1]") == [IPAddress("::1")!])
        #expect(try SourcePolicy.resolve(host: "169.254.169.254").first?.kind == .metadata)
        #expect(throws: ServeError.self) { try SourcePolicy.resolve(host: "no-such-host.invalid") }
    }
}
