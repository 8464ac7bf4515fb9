import AuthCore
import Foundation

/// Times as the screens print them. Pure arithmetic on the epoch plus a fixed offset, so a snapshot is the same
/// in every time zone and locale; the event loop passes the local offset.
public enum TimeText {
    /// `HH:MM` of `date` at `offset` seconds east of UTC.
    public static func clock(_ date: Date, offset: Int) -> String {
        let seconds = Self.localSeconds(date, offset)
        let minutes = (seconds % 86_400 + 86_400) % 86_400 / 60
        return two(minutes / 60) + ":" + two(minutes % 60)
    }

    /// `YYYY-MM-DD HH:MM` of `date` at `offset` seconds east of UTC.
    public static func dateTime(_ date: Date, offset: Int) -> String {
        let seconds = Self.localSeconds(date, offset)
        let days = Int((Double(seconds) / 86_400).rounded(.down))
        let (year, month, day) = civil(fromDays: days)
        return "\(year)-\(two(month))-\(two(day)) " + clock(date, offset: offset)
    }

    /// How long until an expiry (`DurationText.remaining`, which `authdeck list` prints too).
    public static func remaining(_ seconds: Int) -> String { DurationText.remaining(seconds) }

    /// A signed duration for the EXPIRES column (`DurationText.signed`, which `authdeck list` prints too).
    public static func signed(_ seconds: Int) -> String { DurationText.signed(seconds) }

    /// `M:SS` for a sign-in's deadline.
    public static func countdown(_ seconds: Int) -> String {
        let clamped = max(0, seconds)
        return "\(clamped / 60):\(two(clamped % 60))"
    }

    /// Seconds from `now` to `date`, rounded up so a countdown reaches 0 only when the time is up.
    public static func secondsUntil(_ date: Date, from now: Date) -> Int {
        Int(date.timeIntervalSince(now).rounded(.up))
    }

    private static func localSeconds(_ date: Date, _ offset: Int) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down)) + offset
    }

    private static func two(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }

    /// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
