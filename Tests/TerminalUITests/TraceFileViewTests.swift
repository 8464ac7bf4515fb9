import Testing
@testable import TerminalUI

/// The read-only trace view of `trace show FILE`: selection, expansion, scrolling, the frame and the too-small rule.
@Suite struct TraceFileViewTests {
    static func view(steps count: Int = 3, details: Int = 2) -> TraceFileView {
        TraceFileView(title: "customer.jsonl", ending: "Refused the ID token: wrong audience. (exit 4)",
                      endedInError: true, steps: (1...count).map { number in
                          TraceFileView.Step(time: "+0.00\(number)s", kind: number == count ? "result" : "request",
                                             summary: "step number \(number)",
                                             details: (1...details).map { "detail \(number).\($0)" },
                                             isError: number == count)
                      })
    }

    /// Sends keys; whether the view stayed open after each.
    func press(_ view: inout TraceFileView, _ keys: KeyRequest...) -> [Bool] {
        keys.map { view.handle($0) }
    }

    func frame(_ view: inout TraceFileView, rows: Int = 16, cols: Int = 80) -> ScreenBuffer {
        var buffer = ScreenBuffer(rows: rows, cols: cols)
        view.render(into: &buffer)
        return buffer
    }

    @Test func theFrameShowsTheEndingTheStepsAndTheSelection() {
        var view = Self.view()
        let buffer = frame(&view)
        let lines = buffer.textLines()
        #expect(lines[0].hasPrefix(" authdeck · Trace · customer.jsonl"))
        #expect(lines[0].hasSuffix("3 steps · read-only"))
        #expect(lines[1] == "  ended: Refused the ID token: wrong audience. (exit 4)")
        #expect(buffer[1, 2].foreground == .error)
        #expect(lines[3] == " ▸   1    +0.001s  request    step number 1")
        #expect(lines[5].hasSuffix("result     step number 3"))
        #expect(buffer[3, 0].isReversed)
        #expect(!buffer[4, 0].isReversed)
        #expect(buffer[5, 30].foreground == .error)
        #expect(lines[15].contains("step 1/3"))
        #expect(!buffer.textDump().contains("detail"))
    }

    @Test func enterExpandsAndFoldsTheSelectedStep() {
        var view = Self.view()
        #expect(press(&view, .down, .enter) == [true, true])
        var lines = frame(&view).textLines()
        #expect(lines[4].hasPrefix(" ▾   2"))
        #expect(lines[5].hasSuffix("detail 2.1") && lines[6].hasSuffix("detail 2.2"))
        #expect(lines[7].contains("step number 3"))
        _ = press(&view, .enter)
        lines = frame(&view).textLines()
        #expect(lines[5].contains("step number 3"))
        _ = press(&view, .character("a"))
        #expect(view.expanded == [0, 1, 2])
        _ = press(&view, .character("a"))
        #expect(view.expanded.isEmpty)
    }

    @Test func theSelectionStaysInViewWhileScrolling() {
        var view = Self.view(steps: 40, details: 3)
        _ = frame(&view)
        _ = press(&view, .end)
        var buffer = frame(&view)
        #expect(buffer.textDump().contains("step number 40"))
        #expect(buffer.textLines()[15].contains("step 40/40"))
        _ = press(&view, .enter)
        buffer = frame(&view)
        // The list has 11 rows; the last step and its three detail lines fill its bottom.
        #expect(buffer.textLines()[13].hasSuffix("detail 40.3"))
        _ = press(&view, .home)
        buffer = frame(&view)
        #expect(buffer.textLines()[3].contains("step number 1"))
        _ = press(&view, .pageDown)
        #expect(view.selected == 10)
        _ = press(&view, .up)
        #expect(view.selected == 9)
        _ = press(&view, .home, .up)
        #expect(view.selected == 0)
    }

    @Test func qEscAndCtrlCLeaveAndNothingElseDoes() {
        var view = Self.view()
        #expect(press(&view, .character("x"), .paste("text"), .backspace, .function(2), .delete).allSatisfy { $0 })
        #expect(view.selected == 0 && view.expanded.isEmpty)
        #expect(press(&view, .character("q"), .escape, .interrupt) == [false, false, false])
    }

    @Test func aTinyTerminalShowsOnlyTheTooSmallMessage() {
        var view = Self.view()
        let buffer = frame(&view, rows: 10, cols: 40)
        #expect(buffer.textDump().contains("Terminal too small"))
        #expect(!buffer.textDump().contains("step number"))
    }
}
