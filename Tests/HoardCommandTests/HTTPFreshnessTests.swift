import Foundation
import HoardTestSupport
import Testing

@testable import HoardOriginals

/// The HTTP caching rules the tool keeps originals by (RFC 9111): `Cache-Control` and HTTP-date
/// parsing, freshness lifetime and current age, with hostile values.
@Suite("HTTP freshness of downloaded originals")
struct HTTPFreshnessTests {
    /// 1994-11-06 08:49:37 GMT, RFC 9110's example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test("the three HTTP-date formats", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
        "  Sun, 06 Nov 1994 08:49:37 GMT ",
    ])
    func dates(_ text: String) {
        #expect(HTTPDate.parse(text) == Self.example)
    }

    @Test("dates that are not HTTP-dates", arguments: [
        "", "0", "-1", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 99999 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 06 Foo 1994 08:49:37 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, +6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 8:49:37 GMT", "Sun, 06 Nov 0000 08:49:37 GMT", "Sunday, 06-Nov-1994 08:49:37 GMT",
        "Sun Nov 32 08:49:37 1994", "日, 06 Nov 1994 08:49:37 GMT", String(repeating: "9", count: 10_000),
    ])
    func invalidDates(_ text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("leap years and two-digit years")
    func calendar() {
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(HTTPDate.parse("Thu, 29 Feb 2100 00:00:00 GMT") == nil, "2100 is not a leap year")
        #expect(HTTPDate.parse("Thursday, 01-Jan-70 00:00:00 GMT") == Date(timeIntervalSince1970: 0))
        #expect(HTTPDate.parse("Friday, 01-Jan-38 00:00:00 GMT") == Date(timeIntervalSince1970: 2_145_916_800))
    }

    @Test("a Date field is the IMF-fixdate of its second, and parses back to it")
    func format() {
        #expect(HTTPDate.format(secondsSince1970: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(secondsSince1970: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(secondsSince1970: 1_709_164_800) == "Thu, 29 Feb 2024 00:00:00 GMT")
        var random = SplitMix64(seed: 7)
        for _ in 0..<2_000 {
            let second = Int(random.next() % 253_402_300_800)  // to the end of 9999
            #expect(HTTPDate.parse(HTTPDate.format(secondsSince1970: second)) == Date(timeIntervalSince1970: TimeInterval(second)))
        }
    }

    @Test("Cache-Control max-age", arguments: [
        (["max-age=60"], CacheControl.MaxAge.seconds(60)),
        (["MAX-AGE=\"60\""], .seconds(60)),
        (["max-age=0"], .seconds(0)),
        (["max-age=99999999999999999999999999999"], .seconds(CacheControl.maximumDeltaSeconds)),
        (["max-age=2147483647"], .seconds(2_147_483_647)),
        (["max-age=-1"], .invalid),
        (["max-age=1.5"], .invalid),
        (["max-age=1e3"], .invalid),
        (["max-age="], .invalid),
        (["max-age"], .invalid),
        (["max-age=\"5"], .invalid),
        (["max-age= 60"], .seconds(60)),
        (["max-age=60, max-age=30"], .seconds(30)),
        (["max-age=30", "max-age=60"], .seconds(30)),
        (["max-age=60, max-age=abc"], .invalid),
        (["private=\"a, max-age=5\", max-age=70"], .seconds(70)),
        (["s-maxage=5, max-age=70"], .seconds(70)),
    ])
    func maxAge(_ lines: [String], _ expected: CacheControl.MaxAge) {
        #expect(CacheControl(fieldLines: lines).maxAge == expected, "\(lines)")
    }

    @Test("Cache-Control flags, in any case, among empty members and unknown directives")
    func flags() {
        let control = CacheControl(fieldLines: [" , ,No-Cache ,", "x-ext=\"a,b\", NO-STORE", "must-revalidate"])
        #expect(control.noCache && control.noStore && control.mustRevalidate && control.maxAge == nil)
        let none = CacheControl(fieldLines: ["public", "\"no-store\"", "no-storex", ""])
        #expect(!none.noCache && !none.noStore && !none.mustRevalidate)
        #expect(CacheControl(fieldLines: ["no-cache=\"set-cookie\""]).noCache, "qualified: the most restrictive reading")
    }

    static func freshness(
        _ headers: [String: [String]], requestTime: Date = example, responseTime: Date = example
    ) -> HTTPFreshness {
        HTTPFreshness(field: { headers[$0] ?? [] }, requestTime: requestTime, responseTime: responseTime)
    }

    @Test("the freshness lifetime: max-age, then Expires - Date, then a tenth since Last-Modified (at most a day), then a day")
    func lifetime() {
        let date = "Sun, 06 Nov 1994 08:49:37 GMT"
        func lifetime(_ headers: [String: [String]]) -> (Double, HTTPFreshness.LifetimeSource) {
            let value = Self.freshness(headers).lifetime
            return (value.seconds, value.source)
        }
        #expect(lifetime(["cache-control": ["max-age=5"], "expires": ["Sun, 06 Nov 1994 09:49:37 GMT"]]) == (5, .maxAge))
        #expect(lifetime(["cache-control": ["max-age=x"], "expires": ["Sun, 06 Nov 1994 09:49:37 GMT"]]) == (0, .maxAge))
        #expect(lifetime(["date": [date], "expires": ["Sun, 06 Nov 1994 09:49:37 GMT"]]) == (3600, .expires))
        #expect(lifetime(["date": [date], "expires": ["Sun, 06 Nov 1994 07:49:37 GMT"]]) == (0, .expires))
        #expect(lifetime(["expires": ["0"]]) == (0, .expires))
        #expect(
            lifetime(["expires": ["Sun, 06 Nov 1994 09:49:37 GMT", "Sun, 06 Nov 1994 10:49:37 GMT"]]) == (0, .expires),
            "two different Expires: stale")
        #expect(
            lifetime(["date": [date], "last-modified": ["Sun, 06 Nov 1994 07:49:37 GMT"]]) == (360, .lastModifiedHeuristic))
        #expect(
            lifetime(["date": [date], "last-modified": ["Sun, 06 Nov 1904 07:49:37 GMT"]])
                == (HTTPFreshness.maximumHeuristicLifetime, .lastModifiedHeuristic))
        #expect(
            lifetime(["date": [date], "last-modified": ["Sun, 06 Nov 2094 07:49:37 GMT"]]) == (0, .lastModifiedHeuristic),
            "modified in the future")
        #expect(lifetime([:]) == (HTTPFreshness.defaultLifetime, .defaultLifetime))
        #expect(lifetime(["last-modified": ["yesterday"]]) == (HTTPFreshness.defaultLifetime, .defaultLifetime))
    }

    @Test("the current age: corrected initial age plus resident time; Age invalid is ignored, huge is clamped")
    func age() {
        let sent = Self.example
        let received = sent.addingTimeInterval(2)
        let tenSecondsBefore = "Sun, 06 Nov 1994 08:49:27 GMT"
        let now = received.addingTimeInterval(100)
        // Apparent age 12 (Date 10 s before sending, received 2 s later); Age 5 + delay 2 = 7.
        let withAge = Self.freshness(
            ["date": [tenSecondsBefore], "age": ["5"]], requestTime: sent, responseTime: received)
        #expect(withAge.currentAge(at: now) == 112)
        let bigAge = Self.freshness(["date": [tenSecondsBefore], "age": ["50"]], requestTime: sent, responseTime: received)
        #expect(bigAge.currentAge(at: now) == 152)
        for hostile in ["-5", "abc", "1.5", "", "5 5"] {
            let ignored = Self.freshness(
                ["date": [tenSecondsBefore], "age": [hostile]], requestTime: sent, responseTime: received)
            #expect(ignored.currentAge(at: now) == 112, "Age: \(hostile)")
        }
        let huge = Self.freshness(["age": ["999999999999999999999999"], "cache-control": ["max-age=2147483647"]])
        #expect(huge.ageValue == Double(CacheControl.maximumDeltaSeconds))
        #expect(!huge.isFresh(at: Self.example), "older than the largest lifetime")
        #expect(Self.freshness(["age": ["7, 9"]]).ageValue == 7, "the first member of a list")
        // A clock set back does not make an original younger than it arrived.
        #expect(withAge.currentAge(at: sent.addingTimeInterval(-1000)) == 12)
    }

    @Test("fresh, stale, no-cache; a 304 renews the freshness and keeps validators it does not replace")
    func freshAndRenewed() {
        let original = Self.freshness(
            ["cache-control": ["max-age=60"], "etag": ["W/\"1\""], "last-modified": ["Sun, 06 Nov 1994 08:00:00 GMT"]])
        #expect(original.isFresh(at: Self.example.addingTimeInterval(59)))
        #expect(!original.isFresh(at: Self.example.addingTimeInterval(61)))
        #expect(!Self.freshness(["cache-control": ["no-cache, max-age=60"]]).isFresh(at: Self.example))
        let later = Self.example.addingTimeInterval(3600)
        let notModified = Self.freshness(
            ["cache-control": ["max-age=120"], "etag": ["W/\"2\""]], requestTime: later, responseTime: later)
        let renewed = original.updated(byNotModified: notModified)
        #expect(renewed.entityTag == "W/\"2\"" && renewed.lastModified == "Sun, 06 Nov 1994 08:00:00 GMT")
        #expect(renewed.lifetime.seconds == 120)
        #expect(renewed.isFresh(at: later.addingTimeInterval(100)) && !renewed.isFresh(at: later.addingTimeInterval(121)))
        #expect(RequestConditions(renewed) == RequestConditions(entityTag: "W/\"2\"", lastModified: "Sun, 06 Nov 1994 08:00:00 GMT"))
        #expect(RequestConditions(Self.freshness([:])) == nil, "no validator: no conditional request")
    }

    @Test("freshUntil is the instant the lifetime and the current age meet: fresh before it, stale from it")
    func freshUntil() {
        let sent = Self.example, received = Self.example.addingTimeInterval(2)
        let tenSecondsBefore = "Sun, 06 Nov 1994 08:49:27 GMT"
        let cases: [([String: [String]], Date?)] = [
            // max-age 100, arrived 2 s old (the response delay): stale 98 s after reception.
            (["cache-control": ["max-age=100"]], received.addingTimeInterval(98)),
            // Apparent age 12: stale 88 s after reception.
            (["cache-control": ["max-age=100"], "date": [tenSecondsBefore]], received.addingTimeInterval(88)),
            (["cache-control": ["max-age=100"], "age": ["150"]], nil),  // older on arrival than its lifetime
            (["cache-control": ["max-age=0"]], nil),
            (["cache-control": ["no-cache, max-age=100"]], nil),
            (["cache-control": ["max-age=oops"]], nil),
            ([:], received.addingTimeInterval(HTTPFreshness.defaultLifetime - 2)),
        ]
        for (headers, expected) in cases {
            let freshness = Self.freshness(headers, requestTime: sent, responseTime: received)
            #expect(freshness.freshUntil == expected, "\(headers)")
            // isFresh agrees with the age rule everywhere around the instant, and before reception.
            for offset in [-1000.0, -1, 0, 1, 87, 87.5, 88, 88.5, 97, 97.5, 98, 98.5, 99, 86_397, 86_398, 86_399] {
                let now = received.addingTimeInterval(offset)
                let byAge = !freshness.control.noCache && freshness.lifetime.seconds > freshness.currentAge(at: now)
                #expect(freshness.isFresh(at: now) == byAge, "\(headers) at +\(offset) s")
            }
        }
    }

    @Test("a record works out its freshness once: when made, read back and given a new response")
    func recordFreshness() throws {
        let freshness = Self.freshness(["cache-control": ["max-age=60"]])
        var record = OriginalRecord(digest: "d", byteCount: 1, freshness: freshness)
        #expect(record.freshUntil == Self.example.addingTimeInterval(60))
        #expect(record.isFresh(at: Self.example.addingTimeInterval(59)) && !record.isFresh(at: Self.example.addingTimeInterval(60)))
        let decoded = try OriginalRecord.decode(record.encode())
        #expect(decoded == record && decoded.freshUntil == record.freshUntil, "read back with its verdict")
        let json = try #require(String(data: record.encode(), encoding: .utf8))
        #expect(!json.contains("freshUntil"), "the verdict is derived, not stored: \(json)")
        record.freshness = Self.freshness(["cache-control": ["no-cache"]])
        #expect(record.freshUntil == nil && !record.isFresh(at: Self.example))
    }

    @Test("--revalidate: never asks, stale asks when stale, always asks")
    func policy() {
        let fresh = OriginalRecord(digest: "d", byteCount: 1, freshness: Self.freshness(["cache-control": ["max-age=60"]]))
        let stale = OriginalRecord(digest: "d", byteCount: 1, freshness: Self.freshness(["cache-control": ["max-age=0"]]))
        let now = Self.example.addingTimeInterval(1)
        #expect(!RevalidationPolicy.never.shouldRevalidate(stale, at: now))
        #expect(!RevalidationPolicy.stale.shouldRevalidate(fresh, at: now))
        #expect(RevalidationPolicy.stale.shouldRevalidate(stale, at: now))
        #expect(RevalidationPolicy.always.shouldRevalidate(fresh, at: now))
    }
}
