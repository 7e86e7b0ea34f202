import HoardRESP
import RedisTestSupport
import Testing

private let values: [RESPValue] = [
    .simpleString("OK"), .simpleString(""), .error("ERR wrong"), .integer(0), .integer(-1), .integer(.max),
    .integer(.min),
    .bulkString([]), .bulkString(nil), .bulkString(Array(0...255)), .array(nil), .array([]),
    .array([.integer(1), .array([.bulkString([13, 10]), .bulkString(nil)]), .simpleString("x")]),
]

@Suite("RESPEncoder")
struct RESPEncoderTests {
    @Test("writes a command as an array of bulk strings")
    func encodesCommands() {
        let bytes = RESPEncoder.encodeCommand(["SET", "key", RESPArgument([0, 13, 10, 255]), "PX", RESPArgument(1500)])
        let expected =
            Array("*5\r\n$3\r\nSET\r\n$3\r\nkey\r\n$4\r\n".utf8) + [0, 13, 10, 255]
            + Array("\r\n$2\r\nPX\r\n$4\r\n1500\r\n".utf8)
        #expect(bytes == expected)
    }

    @Test("predicts a command's encoded size", arguments: [0, 1, 9, 10, 99, 100, 65_536])
    func predictsSize(_ argumentLength: Int) {
        let command: [RESPArgument] = ["SET", RESPArgument([UInt8](repeating: 7, count: argumentLength))]
        #expect(RESPEncoder.encodedByteCount(ofCommand: command) == RESPEncoder.encodeCommand(command).count)
        let many = [RESPArgument](repeating: "x", count: argumentLength)
        #expect(RESPEncoder.encodedByteCount(ofCommand: many) == RESPEncoder.encodeCommand(many).count)
    }

    @Test("writes a command into a raw buffer, and refuses one too small", arguments: [0, 9, 10, 65_536])
    func encodesIntoRawBuffers(_ argumentLength: Int) async {
        let command: [RESPArgument] = ["SET", "key", RESPArgument([UInt8](repeating: 13, count: argumentLength))]
        let expected = RESPEncoder.encodeCommand(command)
        var buffer = [UInt8](repeating: 0xEE, count: expected.count + 3)
        let written = buffer.withUnsafeMutableBytes { RESPEncoder.encodeCommand(command, into: $0) }
        #expect(written == expected.count)
        #expect(Array(buffer.prefix(written)) == expected)
        #expect(buffer.suffix(3) == [0xEE, 0xEE, 0xEE])
        await #expect(processExitsWith: .failure) {
            var small = [UInt8](repeating: 0, count: 20)
            small.withUnsafeMutableBytes { _ = RESPEncoder.encodeCommand(["SET", "key", "a longer value"], into: $0) }
        }
    }

    @Test("appends pipelined commands to one buffer")
    func appendsCommands() {
        var bytes: [UInt8] = []
        RESPEncoder.encodeCommand(["PING"], into: &bytes)
        RESPEncoder.encodeCommand(["DBSIZE"], into: &bytes)
        #expect(bytes == Array("*1\r\n$4\r\nPING\r\n*1\r\n$6\r\nDBSIZE\r\n".utf8))
    }

    @Test("writes every value so that it parses back to itself", arguments: values)
    func roundTrips(_ value: RESPValue) throws {
        var parser = RESPParser()
        parser.append(RESPEncoder.encode(value))
        #expect(try parser.next() == value)
        #expect(parser.pendingByteCount == 0)
    }

    @Test("writes integers in decimal, extremes included")
    func encodesIntegers() {
        #expect(RESPEncoder.encode(.integer(.min)) == Array(":-9223372036854775808\r\n".utf8))
        #expect(RESPEncoder.encode(.integer(.max)) == Array(":9223372036854775807\r\n".utf8))
        #expect(RESPEncoder.encode(.integer(0)) == Array(":0\r\n".utf8))
        #expect(RESPEncoder.encode(.bulkString(nil)) == Array("$-1\r\n".utf8))
        #expect(RESPEncoder.encode(.array(nil)) == Array("*-1\r\n".utf8))
    }

    @Test("writes CR and LF in simple strings and errors as spaces")
    func replacesLineBreaks() {
        #expect(RESPEncoder.encode(.simpleString("a\r\nb")) == Array("+a  b\r\n".utf8))
        #expect(RESPEncoder.encode(.error("x\ny")) == Array("-x y\r\n".utf8))
    }

    @Test("describes arguments by size only")
    func argumentDescriptionHidesBytes() {
        let argument = RESPArgument("hunter2")
        #expect(argument.description == "RESPArgument(7 bytes)")
        #expect(!String(describing: argument).contains("hunter2"))
        #expect(RESPArgument(-12).bytes == Array("-12".utf8))
        #expect(RESPArgument(UInt64.max).bytes == Array("18446744073709551615".utf8))
    }
}
