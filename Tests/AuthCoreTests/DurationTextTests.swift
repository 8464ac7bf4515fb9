import AuthCore
import Testing

/// `--min-valid` durations: the forms operators type, and everything else refused.
@Suite struct DurationTextTests {
    @Test func acceptedForms() {
        #expect(DurationText.seconds("0") == 0)
        #expect(DurationText.seconds("90") == 90)
        #expect(DurationText.seconds("90s") == 90)
        #expect(DurationText.seconds("5m") == 300)
        #expect(DurationText.seconds("2h") == 7200)
        #expect(DurationText.seconds("1h30m") == 5400)
        #expect(DurationText.seconds("1d2h3m4s") == 93_784)
        #expect(DurationText.seconds("7d") == 604_800)
    }

    @Test func refusedForms() {
        for text in [
            "", "-5", "5x", "m", "5m3", "1h1h", "8d", "604801", "1.5h", " 5m", "5 m", "٣m",
            "99999999999999999999",
        ] {
            #expect(DurationText.seconds(text) == nil, "\(text)")
        }
    }

    /// How `inspect` shows a distance: the two largest units, the smaller left out when nought.
    @Test func shownDistances() {
        #expect(DurationText.text(0) == "0s")
        #expect(DurationText.text(45) == "45s")
        #expect(DurationText.text(250) == "4m 10s")
        #expect(DurationText.text(305) == "5m 05s")
        #expect(DurationText.text(7200) == "2h")
        #expect(DurationText.text(7259) == "2h")
        #expect(DurationText.text(9000) == "2h 30m")
        #expect(DurationText.text(273_600) == "3d 04h")
        #expect(DurationText.relative(250) == "in 4m 10s")
        #expect(DurationText.relative(-7200) == "2h ago")
        #expect(DurationText.relative(0) == "now")
        #expect(DurationText.relative(Int.min + 1).hasSuffix(" ago"))
    }
}
