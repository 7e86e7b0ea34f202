import Foundation
import HTTPTypes
import Hoard
import HoardServer
import HoardTestSupport
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Sources that lie about their size.
@Suite("ImageServer against hostile sources")
struct HostileSourceTests {
    typealias Fixture = ServerFixture

    /// `jpeg` with its frame header claiming `width` × `height`: a few hundred bytes that declare gigapixels.
    static func claiming(_ jpeg: Data, width: Int, height: Int) throws -> Data {
        var bytes = [UInt8](jpeg)
        let frame = try #require(
            (0..<(bytes.count - 9)).first { bytes[$0] == 0xFF && (0xC0...0xC2).contains(bytes[$0 + 1]) })
        bytes[frame + 5] = UInt8(height >> 8)
        bytes[frame + 6] = UInt8(height & 0xFF)
        bytes[frame + 7] = UInt8(width >> 8)
        bytes[frame + 8] = UInt8(width & 0xFF)
        return Data(bytes)
    }

    @Test("a JPEG whose header claims 60000×60000 is refused with 413 before decoding, at any output size")
    func jpegClaim() async throws {
        let fixture = try Fixture()
        defer { fixture.directory.remove() }
        let small = try Image(width: 16, height: 16, format: .rgb8, pixels: [UInt8](repeating: 90, count: 16 * 16 * 3))
            .jpegData(quality: 80)
        try Self.claiming(small, width: 60_000, height: 60_000).write(to: URL(fileURLWithPath: fixture.root + "/claim.jpg"))
        try await fixture.withServer(try fixture.configuration(unsigned: true)) { client, _ throws in
            for width in [32, 256, 4096] {
                let started = ContinuousClock.now
                let response = try await client.execute(uri: "/unsafe/w:\(width)/plain/local:///claim.jpg", method: .get)
                #expect(response.status == .contentTooLarge, "w:\(width): \(String(buffer: response.body))")
                #expect(String(buffer: response.body).contains("60000x60000"))
                // Refused from the header: no decode (which took 1.3 s and 221 MB).
                #expect(ContinuousClock.now - started < .seconds(30))
            }
            // A real photo within the limit is still served.
            let photo = try await client.execute(uri: "/unsafe/w:32/plain/local:///photo.jpg", method: .get)
            #expect(photo.status == .ok)
        }
    }
}
