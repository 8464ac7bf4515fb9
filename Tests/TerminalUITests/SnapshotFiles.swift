import Foundation
import Testing

@testable import TerminalUI

/// Text snapshots kept in Tests/TerminalUITests/Snapshots, one file per screen and size; the file is the screen
/// as text with trailing spaces trimmed. AUTHDECK_RECORD_SNAPSHOTS=1 rewrites them.
enum Snapshots {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Snapshots")

    static var isRecording: Bool { ProcessInfo.processInfo.environment["AUTHDECK_RECORD_SNAPSHOTS"] == "1" }

    static func expect(
        _ buffer: ScreenBuffer, named name: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let file = folder.appendingPathComponent(name + ".txt")
        let actual = buffer.textDump() + "\n"
        if isRecording {
            // Recording compares nothing: it is never what CI runs, and elsewhere it says so, so the run's list of
            // skips shows it.
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("AUTHDECK_RECORD_SNAPSHOTS is set under CI: snapshots would be rewritten, not compared")
                return
            }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try actual.write(to: file, atomically: true, encoding: .utf8)
            print("skipped: snapshot \(name) recorded, not compared (AUTHDECK_RECORD_SNAPSHOTS=1)")
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record(
                "no snapshot \(name).txt; record it with AUTHDECK_RECORD_SNAPSHOTS=1. Screen was:\n\(actual)",
                sourceLocation: sourceLocation)
            return
        }
        #expect(actual == expected, "snapshot \(name) differs; screen was:\n\(actual)", sourceLocation: sourceLocation)
    }
}
