import Foundation
import RedisTestSupport
import Testing

/// The test servers themselves: what every other suite here relies on.
@Suite("RedisServer (the tests' own servers)", .requiresRedisServer)
struct RedisServerTests {
    @Test("a server inherits none of the test process's descriptors, so no pipe's end of file waits for it")
    func inheritsNoDescriptor() async throws {
        let pipe = Pipe()  // what a test running the tool holds while the server starts
        defer { try? pipe.fileHandleForReading.close() }
        let writeEnd = try FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/fd/\(pipe.fileHandleForWriting.fileDescriptor)")
        try await withRedisServer { server throws in
            let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(server.processIdentifier)/fd")
            #expect(!descriptors.isEmpty)
            let targets = descriptors.compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.processIdentifier)/fd/\($0)")
            }
            #expect(!targets.contains(writeEnd), "\(targets)")
        }
        try pipe.fileHandleForWriting.close()
        #expect(try pipe.fileHandleForReading.readToEnd() == nil, "end of file at once")
    }
}
