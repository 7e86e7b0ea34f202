import Foundation

/// Parses the HTTP-date formats of RFC 9110 §5.6.7: the IMF-fixdate every server should send
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), and the obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`)
/// and asctime (`Sun Nov  6 08:49:37 1994`) formats a recipient must still accept.
///
/// Every field is checked (a day that the month does not have, an hour of 24, a year of five
/// digits): a value that is not a date in one of the three formats is `nil`, which the callers
/// treat as RFC 9111 says (an invalid `Expires` is already expired). No `DateFormatter`, whose
/// first use costs more than a warm run's work and depends on the locale.
///
/// ```swift
/// HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970  // 784111777
/// HTTPDate.parse("0")  // nil
/// ```
package enum HTTPDate {
    /// The date `text` names, or `nil` when it is not an HTTP-date.
    ///
    /// A two-digit RFC 850 year is read as 1970-2069.
    ///
    /// - Complexity: O(*n*) in the length of `text`.
    package static func parse(_ text: String) -> Date? {
        // Read as bytes: the formats are ASCII, and an original's freshness is checked per request.
        let bytes = Array(text.utf8)
        let fields = bytes.split(separator: UInt8(ascii: " "))
        switch fields.count {
        case 6:  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            guard fields[0].count == 4, fields[0].last == UInt8(ascii: ","), shortWeekdays.contains(fields[0].dropLast()),
                fields[1].count == 2, fields[3].count == 4, fields[5].elementsEqual("GMT".utf8)
            else { return nil }
            return date(day: fields[1], month: fields[2], year: number(fields[3]), time: fields[4])
        case 4:  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            let parts = fields[1].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
            guard fields[0].last == UInt8(ascii: ","), longWeekdays.contains(fields[0].dropLast()), parts.count == 3,
                parts[0].count == 2, parts[2].count == 2, fields[3].elementsEqual("GMT".utf8),
                let twoDigits = number(parts[2])
            else { return nil }
            return date(day: parts[0], month: parts[1], year: twoDigits < 70 ? 2000 + twoDigits : 1900 + twoDigits,
                time: fields[2])
        case 5:  // asctime: Sun Nov  6 08:49:37 1994
            guard shortWeekdays.contains(fields[0]), (1...2).contains(fields[2].count), fields[4].count == 4
            else { return nil }
            return date(day: fields[2], month: fields[1], year: number(fields[4]), time: fields[3])
        default:
            return nil
        }
    }

    /// The IMF-fixdate of a time in whole seconds since 1970 (`Sun, 06 Nov 1994 08:49:37 GMT`):
    /// a server's `Date` field.
    package static func format(secondsSince1970 seconds: Int) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        let weekday = ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday (index 3 from Monday)
        func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let yearText = String(year)
        let fourDigits = String(repeating: "0", count: max(0, 4 - yearText.count)) + yearText
        return "\(weekdayNames[weekday]), \(twoDigits(day)) \(monthNames[month - 1]) \(fourDigits) "
            + "\(twoDigits(secondOfDay / 3_600)):\(twoDigits(secondOfDay / 60 % 60)):\(twoDigits(secondOfDay % 60)) GMT"
    }

    // MARK: - Private

    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private typealias Field = ArraySlice<UInt8>

    private static let shortWeekdays = Names(weekdayNames)
    private static let longWeekdays = Names(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"])
    private static let months = Names(monthNames)

    /// Names as bytes, looked up by exact bytes.
    private struct Names {
        let names: [[UInt8]]
        init(_ names: [String]) { self.names = names.map { Array($0.utf8) } }
        func index(of field: Field) -> Int? { names.firstIndex { $0.elementsEqual(field) } }
        func contains(_ field: Field) -> Bool { index(of: field) != nil }
    }

    private static func date(day dayText: Field, month monthText: Field, year: Int?, time: Field) -> Date? {
        let clock = time.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard let year, (1...9999).contains(year), let monthIndex = months.index(of: monthText),
            let day = number(dayText), clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
            hour < 24, minute < 60, second <= 60  // 60: a leap second
        else { return nil }
        let month = monthIndex + 1
        guard day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func number(_ digits: Field) -> Int? {
        guard (1...4).contains(digits.count), digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
