// This file imports nothing but the Swift standard library: the libFuzzer harness compiles the
// files of Protocol/ alone.

/// Writes RESP2: commands as arrays of bulk strings (what a client sends), and any
/// ``RESPValue`` (for tests, fake servers and the fuzz harness's round trips).
///
/// ```swift
/// let bytes = RESPEncoder.encodeCommand(["GET", "thumbnails:42"])
/// // "*2\r\n$3\r\nGET\r\n$13\r\nthumbnails:42\r\n"
/// ```
///
/// Encoding cannot fail: bulk strings hold any bytes, and the CR and LF that a simple string or
/// an error cannot hold are written as spaces (what Redis does with its own error messages).
/// Whatever ``RESPParser`` returns encodes back to bytes that parse to the same value.
public enum RESPEncoder {
    /// The bytes of a command: an array of bulk strings, the command's name first.
    ///
    /// ```swift
    /// let bytes = RESPEncoder.encodeCommand(["SET", RESPArgument(key), RESPArgument(value)])
    /// ```
    ///
    /// - Parameter arguments: The command's name and arguments.
    /// - Returns: The encoded command.
    /// - Complexity: O(n) in the total size of the arguments.
    public static func encodeCommand(_ arguments: [RESPArgument]) -> [UInt8] {
        var bytes: [UInt8] = []
        encodeCommand(arguments, into: &bytes)
        return bytes
    }

    /// Appends the bytes of a command to `bytes`.
    ///
    /// ```swift
    /// var bytes: [UInt8] = []
    /// RESPEncoder.encodeCommand(["PING"], into: &bytes)
    /// RESPEncoder.encodeCommand(["DBSIZE"], into: &bytes)  // two pipelined commands
    /// ```
    ///
    /// - Parameters:
    ///   - arguments: The command's name and arguments.
    ///   - bytes: Where to append them.
    /// - Complexity: O(n) in the total size of the arguments.
    public static func encodeCommand(_ arguments: [RESPArgument], into bytes: inout [UInt8]) {
        let start = bytes.count
        let count = encodedByteCount(ofCommand: arguments)
        bytes.append(contentsOf: repeatElement(0, count: count))
        bytes.withUnsafeMutableBytes { buffer in
            let destination = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + count])
            _ = encodeCommand(arguments, byteCount: count, into: destination)
        }
    }

    /// Writes the bytes of a command at the start of `buffer`, so that a client can encode
    /// straight into its I/O buffer, with no array in between.
    ///
    /// ```swift
    /// let count = RESPEncoder.encodedByteCount(ofCommand: command)
    /// buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { RESPEncoder.encodeCommand(command, into: $0) }
    /// ```
    ///
    /// - Parameters:
    ///   - arguments: The command's name and arguments.
    ///   - buffer: Where to write them; at least ``encodedByteCount(ofCommand:)`` bytes (checked).
    /// - Returns: The number of bytes written, ``encodedByteCount(ofCommand:)``.
    /// - Complexity: O(n) in the total size of the arguments.
    @discardableResult
    public static func encodeCommand(_ arguments: [RESPArgument], into buffer: UnsafeMutableRawBufferPointer) -> Int {
        encodeCommand(arguments, byteCount: encodedByteCount(ofCommand: arguments), into: buffer)
    }

    /// Writes the bytes of a command at the start of `buffer`, as the raw-buffer `encodeCommand`
    /// does, for a caller that has counted them already (to size its buffer): no second count.
    ///
    /// - Parameters:
    ///   - arguments: The command's name and arguments.
    ///   - byteCount: ``encodedByteCount(ofCommand:)`` of `arguments` (checked in debug builds).
    ///   - buffer: Where to write them; at least `byteCount` bytes (checked).
    /// - Returns: `byteCount`, the number of bytes written.
    /// - Complexity: O(n) in the total size of the arguments.
    @discardableResult
    static func encodeCommand(
        _ arguments: [RESPArgument], byteCount count: Int, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        assert(count == encodedByteCount(ofCommand: arguments), "RESPEncoder: a wrong byte count for a command")
        precondition(buffer.count >= count, "RESPEncoder: \(buffer.count) bytes for a command of \(count)")
        var offset = 0
        func put(_ byte: UInt8) {
            buffer[offset] = byte
            offset += 1
        }
        func header(_ type: UInt8, _ value: Int) {
            put(type)
            forEachDecimalDigit(of: UInt64(value), put)
            put(0x0D)
            put(0x0A)
        }
        header(UInt8(ascii: "*"), arguments.count)
        for argument in arguments {
            header(UInt8(ascii: "$"), argument.bytes.count)
            argument.bytes.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<offset + source.count]).copyMemory(from: source)
            }
            offset += argument.bytes.count
            put(0x0D)
            put(0x0A)
        }
        return offset
    }

    /// How many bytes ``encodeCommand(_:)`` writes for `arguments`, to reserve a buffer.
    ///
    /// ```swift
    /// RESPEncoder.encodedByteCount(ofCommand: ["PING"])  // 14
    /// ```
    ///
    /// - Parameter arguments: The command's name and arguments.
    /// - Returns: The encoded size in bytes.
    /// - Complexity: O(n) in the number of arguments.
    public static func encodedByteCount(ofCommand arguments: [RESPArgument]) -> Int {
        var count = 3 + decimalDigitCount(UInt64(arguments.count))
        for argument in arguments {
            count += 5 + decimalDigitCount(UInt64(argument.bytes.count)) + argument.bytes.count
        }
        return count
    }

    /// The bytes of `value`.
    ///
    /// ```swift
    /// RESPEncoder.encode(.integer(-7))  // ":-7\r\n"
    /// ```
    ///
    /// - Parameter value: Any value; CR and LF in a simple string or an error become spaces.
    /// - Returns: The encoded value.
    /// - Complexity: O(n) in the size of the value.
    public static func encode(_ value: RESPValue) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(value, into: &bytes)
        return bytes
    }

    /// Appends the bytes of `value` to `bytes`.
    ///
    /// ```swift
    /// var bytes: [UInt8] = []
    /// RESPEncoder.encode(.simpleString("OK"), into: &bytes)  // "+OK\r\n"
    /// ```
    ///
    /// - Parameters:
    ///   - value: Any value; CR and LF in a simple string or an error become spaces.
    ///   - bytes: Where to append them.
    /// - Complexity: O(n) in the size of the value; recursion as deep as its arrays nest.
    public static func encode(_ value: RESPValue, into bytes: inout [UInt8]) {
        switch value {
        case .simpleString(let text):
            appendLine(UInt8(ascii: "+"), text, to: &bytes)
        case .error(let text):
            appendLine(UInt8(ascii: "-"), text, to: &bytes)
        case .integer(let integer):
            appendHeader(UInt8(ascii: ":"), integer, to: &bytes)
        case .bulkString(nil):
            appendHeader(UInt8(ascii: "$"), -1, to: &bytes)
        case .bulkString(let payload?):
            appendHeader(UInt8(ascii: "$"), Int64(payload.count), to: &bytes)
            bytes.append(contentsOf: payload)
            bytes.append(contentsOf: crlf)
        case .array(nil):
            appendHeader(UInt8(ascii: "*"), -1, to: &bytes)
        case .array(let elements?):
            appendHeader(UInt8(ascii: "*"), Int64(elements.count), to: &bytes)
            for element in elements { encode(element, into: &bytes) }
        }
    }
}

// MARK: - Helpers

extension RESPEncoder {
    private static let crlf: [UInt8] = [0x0D, 0x0A]

    /// `type`, `integer` in decimal, CRLF.
    private static func appendHeader(_ type: UInt8, _ integer: Int64, to bytes: inout [UInt8]) {
        bytes.append(type)
        if integer < 0 { bytes.append(UInt8(ascii: "-")) }
        forEachDecimalDigit(of: integer.magnitude) { bytes.append($0) }
        bytes.append(contentsOf: crlf)
    }

    /// Calls `body` with the ASCII digits of `value`, most significant first.
    private static func forEachDecimalDigit(of value: UInt64, _ body: (UInt8) -> Void) {
        var divisor: UInt64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        while divisor > 0 {
            body(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// `type`, the UTF-8 of `text` with CR and LF as spaces, CRLF.
    private static func appendLine(_ type: UInt8, _ text: String, to bytes: inout [UInt8]) {
        bytes.append(type)
        for byte in text.utf8 {
            bytes.append(byte == 0x0D || byte == 0x0A ? UInt8(ascii: " ") : byte)
        }
        bytes.append(contentsOf: crlf)
    }

    private static func decimalDigitCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }
}
