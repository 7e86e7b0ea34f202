import HoardRESP
import RedisTestSupport
import Testing

@Suite("RedisClientError")
struct RedisClientErrorTests {
    @Test("error replies map to typed errors by their code")
    func mapsServerErrors() {
        let oom = RedisClientError(
            serverErrorMessage: "OOM command not allowed when used memory > 'maxmemory'.", command: "SET")
        guard case .outOfMemory(let command, _) = oom else {
            Issue.record("unexpected \(oom)")
            return
        }
        #expect(command == "SET")
        guard
            case .authenticationFailed(nil, _) = RedisClientError(
                serverErrorMessage: "NOAUTH Authentication required.", command: "GET")
        else {
            Issue.record("NOAUTH is not an authentication failure")
            return
        }
        guard case .authenticationFailed = RedisClientError(serverErrorMessage: "WRONGPASS invalid", command: "AUTH")
        else {
            Issue.record("WRONGPASS is not an authentication failure")
            return
        }
        let noScript = RedisClientError(serverErrorMessage: "NOSCRIPT No matching script.", command: "EVALSHA")
        #expect(noScript.serverErrorCode == "NOSCRIPT")
        #expect(RedisClientError(serverErrorMessage: "ERR", command: "X").serverErrorCode == "ERR")
        #expect(RedisClientError.clientClosed.serverErrorCode == nil)
    }

    @Test("tells failures of the connection or server from the caller's mistakes")
    func classifiesFailures() {
        let failures: [RedisClientError] = [
            .connectTimedOut(host: "h", port: 1, timeout: .seconds(1)), .timedOut(command: "GET", timeout: .seconds(1)),
            .connectionClosed(command: "GET", underlying: nil), .authenticationFailed(user: nil, message: "WRONGPASS"),
            .protocolError(command: "GET", RESPParseError(.invalidInteger, at: 0)),
            .replyTooLarge(command: "GET", maximum: 1024), .outOfMemory(command: "SET", message: "OOM"),
            .server(command: "GET", message: "LOADING Redis is loading the dataset in memory"),
            .server(command: "SET", message: "READONLY You can't write against a read only replica."),
        ]
        for error in failures { #expect(error.isConnectionOrServerFailure, "\(error)") }
        let mistakes: [RedisClientError] = [
            .invalidValue(InvalidValueError(field: "f", value: "v", requirement: "r")), .server(command: "GET", message: "WRONGTYPE x"),
            .server(command: "EVALSHA", message: "NOSCRIPT x"),
            .unexpectedReply(command: "GET", expected: "a", received: "b"),
            .clientClosed,
        ]
        for error in mistakes { #expect(!error.isConnectionOrServerFailure, "\(error)") }
    }

    @Test("descriptions name the command, the address and the deadline")
    func describes() {
        #expect(
            RedisClientError.timedOut(command: "GET", timeout: .milliseconds(250)).description
                == "Redis did not answer GET within 0.25 seconds; the connection was closed")
        #expect(
            RedisClientError.connectTimedOut(host: "::1", port: 6379, timeout: .seconds(2)).description
                == "Connecting to Redis at [::1]:6379 took more than 2.0 seconds")
        #expect(
            RedisClientError.authenticationFailed(user: "tier", message: "WRONGPASS invalid").description
                == "Redis authentication failed for user 'tier': WRONGPASS invalid")
        #expect(
            RedisClientError.replyTooLarge(command: "GET", maximum: 4096).description
                == "The Redis reply to GET is larger than the maximum of 4096 bytes")
    }
}
