import Foundation
import Testing

@testable import AuthdeckCommands

/// The Trace screen's path field completes as a shell does (the event loop lists the folder): as far as the names
/// agree, a folder's name with its `/`, the names when several fit, hidden ones only when a `.` was typed.
@Suite struct TracePathCompletionTests {
    let folder = TemporaryFolder()

    @Test func tabCompletesAsFarAsTheNamesAgree() throws {
        let traces = folder.path + "/traces"
        try FileManager.default.createDirectory(atPath: traces + "/other", withIntermediateDirectories: true)
        for name in ["customer-a.jsonl", "customer-b.jsonl", ".hidden.jsonl"] {
            _ = FileManager.default.createFile(atPath: traces + "/" + name, contents: Data())
        }
        let several = TUIEventLoop.completedPath(traces + "/cu")
        #expect(several.text == traces + "/customer-")
        #expect(several.choices == ["customer-a.jsonl", "customer-b.jsonl"])
        #expect(TUIEventLoop.completedPath(traces + "/customer-b").text == traces + "/customer-b.jsonl")
        let one = TUIEventLoop.completedPath(traces + "/oth")
        #expect(one.text == traces + "/other/" && one.choices.isEmpty)
        let none = TUIEventLoop.completedPath(traces + "/zz")
        #expect(none.text == traces + "/zz" && none.choices.isEmpty)
        #expect(TUIEventLoop.completedPath(traces + "/").choices == ["customer-a.jsonl", "customer-b.jsonl", "other"])
        #expect(TUIEventLoop.completedPath(traces + "/.h").text == traces + "/.hidden.jsonl")
    }
}
