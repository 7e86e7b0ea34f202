import Foundation

/// What HTTP says about how long a downloaded original stays fresh, and how to revalidate it:
/// the caching fields of its response, kept as the server sent them, and when it was requested
/// and received (RFC 9111).
///
/// The freshness lifetime (§4.2.1) comes from, in order: `Cache-Control: max-age`; `Expires`
/// minus `Date`; the heuristic of §4.2.2, a tenth of the time since `Last-Modified`, at most
/// ``maximumHeuristicLifetime`` (one day); and without any of them ``defaultLifetime`` (one day).
/// An invalid `max-age` or `Expires` makes the original stale at once. The current age is §4.2.3's:
/// the corrected initial age (the larger of the apparent age, `Date` to reception, and `Age` plus
/// the response delay) plus the time since reception.
///
/// ```swift
/// let freshness = HTTPFreshness(field: { response.headers[$0] }, requestTime: sent, responseTime: received)
/// if !freshness.isFresh(at: Date()) { /* revalidate with freshness.entityTag, freshness.lastModified */ }
/// ```
package struct HTTPFreshness: Sendable, Equatable, Codable {
    /// Where a freshness lifetime came from.
    package enum LifetimeSource: String, Sendable, Equatable {
        case maxAge, expires, lastModifiedHeuristic, defaultLifetime
    }

    /// The lifetime of an original whose response says nothing of freshness, in seconds: a day,
    /// so that a rerun the same day makes no request.
    package static let defaultLifetime: Double = 86_400
    /// The longest lifetime the `Last-Modified` heuristic gives, in seconds: a day.
    package static let maximumHeuristicLifetime: Double = 86_400
    /// The share of the time since `Last-Modified` the heuristic gives (RFC 9111 §4.2.2's 10%).
    package static let heuristicFraction = 0.1

    /// `ETag`, as sent (a weak `W/"x"` included): returned in `If-None-Match`.
    package var entityTag: String?
    /// `Last-Modified`, as sent: returned in `If-Modified-Since`, and the heuristic's base.
    package var lastModified: String?
    /// `Date`, as sent.
    package var date: String?
    /// Every `Expires` field line.
    package var expires: [String]
    /// Every `Cache-Control` field line.
    package var cacheControl: [String]
    /// `Age`, as sent.
    package var age: String?
    /// When the request was sent.
    package var requestTime: Date
    /// When the response's head arrived.
    package var responseTime: Date

    /// Reads the caching fields of a response.
    ///
    /// - Parameters:
    ///   - field: The field lines of a lower-case field name, in order (none: empty).
    ///   - requestTime: When the request was sent.
    ///   - responseTime: When the response's head arrived.
    package init(field: (String) -> [String], requestTime: Date, responseTime: Date) {
        entityTag = field("etag").first
        lastModified = field("last-modified").first
        date = field("date").first
        expires = field("expires")
        cacheControl = field("cache-control")
        age = field("age").first
        self.requestTime = requestTime
        self.responseTime = responseTime
    }

    /// The freshness after a `304 Not Modified` (RFC 9111 §4.3.4): the fields the 304 carries
    /// replace the stored ones, the others stay, and its times and `Date` and `Age` (never the
    /// old ones, which would age the original by the time it was kept) are the new base.
    package func updated(byNotModified notModified: HTTPFreshness) -> HTTPFreshness {
        var updated = self
        updated.entityTag = notModified.entityTag ?? entityTag
        updated.lastModified = notModified.lastModified ?? lastModified
        if !notModified.expires.isEmpty { updated.expires = notModified.expires }
        if !notModified.cacheControl.isEmpty { updated.cacheControl = notModified.cacheControl }
        updated.date = notModified.date
        updated.age = notModified.age
        updated.requestTime = notModified.requestTime
        updated.responseTime = notModified.responseTime
        return updated
    }

    /// The response's `Cache-Control` directives.
    package var control: CacheControl { CacheControl(fieldLines: cacheControl) }

    /// Whether the original may be kept at all (no `no-store`).
    package var isStorable: Bool { !control.noStore }

    /// Whether a stale original must not be used when revalidation fails (`must-revalidate`
    /// or `no-cache`).
    package var forbidsStaleUse: Bool {
        let control = control
        return control.mustRevalidate || control.noCache
    }

    /// The `Date` the server sent, or the reception time when it sent none or an invalid one
    /// (RFC 9110 §6.6.1: a recipient with a clock uses its own).
    package var dateValue: Date { date.flatMap(HTTPDate.parse) ?? responseTime }

    /// How long the original stays fresh after it left the server, in seconds (never negative),
    /// and which rule gave it.
    package var lifetime: (seconds: Double, source: LifetimeSource) {
        if let maxAge = control.maxAge {
            switch maxAge {
            case .seconds(let seconds): return (Double(seconds), .maxAge)
            case .invalid: return (0, .maxAge)
            }
        }
        if !expires.isEmpty {
            // Several different Expires lines, or an invalid date: stale (RFC 9111 §4.2.1, §5.3).
            guard Set(expires).count == 1, let expiry = expires.first.flatMap(HTTPDate.parse) else {
                return (0, .expires)
            }
            return (max(0, expiry.timeIntervalSince(dateValue)), .expires)
        }
        if let modified = lastModified.flatMap(HTTPDate.parse) {
            let sinceModified = max(0, dateValue.timeIntervalSince(modified))
            return (min(sinceModified * Self.heuristicFraction, Self.maximumHeuristicLifetime), .lastModifiedHeuristic)
        }
        return (Self.defaultLifetime, .defaultLifetime)
    }

    /// The original's age at `now`, in seconds (RFC 9111 §4.2.3); a clock set back does not
    /// make it younger than it arrived.
    package func currentAge(at now: Date) -> Double {
        correctedInitialAge + max(0, now.timeIntervalSince(responseTime))
    }

    /// The original's age when it arrived, in seconds: the larger of the apparent age (`Date` to
    /// reception) and `Age` plus the response delay.
    private var correctedInitialAge: Double {
        let apparentAge = max(0, responseTime.timeIntervalSince(dateValue))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        return max(apparentAge, ageValue + responseDelay)
    }

    /// `Age` in seconds: the first member of the field, clamped to 2^31; 0 without one or for an
    /// invalid one, which RFC 9111 §5.1 says to ignore.
    package var ageValue: Double {
        guard let first = age?.split(separator: ",", omittingEmptySubsequences: false).first,
            let seconds = CacheControl.deltaSeconds(first.trimmingOptionalWhiteSpace())
        else { return 0 }
        return Double(seconds)
    }

    /// Whether the original may be used at `now` without asking the server: not `no-cache`, and
    /// younger than its lifetime.
    package func isFresh(at now: Date) -> Bool {
        freshUntil.map { now < $0 } ?? false
    }

    /// The instant the original turns stale, or `nil` when it is never fresh (`no-cache`, or an
    /// age on arrival already past its lifetime): the original is fresh at `now` exactly when
    /// `now < freshUntil` (its age grows with the time since reception, and a clock set back
    /// leaves it as it arrived). Parsing the fields once here lets a caller answer
    /// ``isFresh(at:)`` without parsing them again.
    package var freshUntil: Date? {
        guard !control.noCache else { return nil }
        let remaining = lifetime.seconds - correctedInitialAge
        return remaining > 0 ? responseTime.addingTimeInterval(remaining) : nil
    }
}
