import Foundation
import SessionStorage
import TestSupport
import Testing

/// `list --json`'s dates, written by arithmetic on the calendar (no gmtime), against Python's `datetime` for the
/// same seconds: every leap rule (4, 100, 400 years), both ends of 0001–9999, times before 1970 (rounded down),
/// fractions, and a spread of ordinary instants.
@Suite struct ISO8601WriterTests {
    /// Seconds since 1970: hand-picked edges, then a fixed pseudo-random spread over the whole range.
    static let instants: [Double] = {
        var values: [Double] = [
            0, -1, -0.5, 0.999, 86_399, 86_400, -86_400, -86_401, 951_782_400, 951_868_799, 951_868_800,
            -2_203_977_600, -2_208_988_800, 4_107_542_400, 4_102_444_800, 1_709_164_800, 1_709_251_199.75,
            -62_135_596_800, -62_135_596_799.5, 253_402_300_799, 253_402_300_799.9, -12_219_292_800,
            1_000_000_000.9, 1_800_000_000, 4_000_000_000, -4_000_000_000,
        ]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let unit = Double(state >> 11) / Double(1 << 53)
            values.append(-62_135_596_800 + unit * (253_402_300_799 + 62_135_596_800))
        }
        return values
    }()

    @Test func datesMatchPythonsDatetime() throws {
        let script = """
            import datetime, math, sys
            epoch = datetime.datetime(1970, 1, 1)
            for line in sys.stdin:
                moment = epoch + datetime.timedelta(seconds=math.floor(float(line)))
                print("%04d-%02d-%02dT%02d:%02d:%02dZ" % (
                    moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second))
            """
        // repr-exact decimal text of each double, so Python reads the very same value.
        let peer = try Program.python(script, stdin: Self.instants.map { "\($0)\n" }.joined())
        #expect(peer.status == 0)
        let expected = peer.text.split(separator: "\n").map(String.init)
        #expect(expected.count == Self.instants.count)
        // A hand-checked anchor keeps the peer honest.
        #expect(expected.first { $0.hasPrefix("0001-01-01") } == "0001-01-01T00:00:00Z")
        for (seconds, python) in zip(Self.instants, expected) {
            var bytes: [UInt8] = []
            JSONBuffer.appendISO8601(seconds: seconds, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == python, "\(seconds)")
        }
    }
}
