import AuthCore
import Foundation
import Testing

@testable import TerminalUI

/// The `e` key's `export AUTHDECK_SESSION=…` line, evaluated by bash, zsh and dash, sets the variable to
/// the key byte for byte for every hostile key of Tests/Fixtures/shell-words.json, and the canary command inside a
/// key never runs. What the line means is the shells' say, not the quoting code's.
@Suite struct ExportLineShellTests {
    static let keys: [String] = {
        let path =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().path
            + "/Fixtures/shell-words.json"
        let document = FileManager.default.contents(atPath: path).flatMap { try? JSONValue.parse(Array($0)) }
        guard case .array(let keys)? = document?["keys"] else { return [] }
        return keys.compactMap(\.string)
    }()

    @Test(arguments: ["/bin/bash", "/usr/bin/zsh", "/usr/bin/dash"])
    func theCopiedExportLineSetsTheKeyExactly(_ shell: String) throws {
        guard FileManager.default.isExecutableFile(atPath: shell) else {
            print("skipped: \(shell) is not installed")
            return
        }
        #expect(Self.keys.count >= 10, "Tests/Fixtures/shell-words.json unread")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("authdeck-export-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let canary = folder + "/canary"
        for (index, template) in Self.keys.enumerated() {
            let key = template.replacingOccurrences(of: "CANARY", with: canary)
            let state = AppFixtures.state(sessions: [SessionItem(record: AppFixtures.record(key), isSelected: true)])
            guard case .copy(let line, _)? = AppFixtures.run(state, AppFixtures.keys("e")).1.first else {
                Issue.record("e copied nothing for \(key.debugDescription)")
                continue
            }
            let out = folder + "/key-\(index)"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: shell)
            process.arguments =
                (shell.hasSuffix("zsh") ? ["-f"] : [])
                + ["-c", #"eval "$LINE" || exit 9; printf '%s' "$AUTHDECK_SESSION" > "$OUT""#]
            process.environment = ["LINE": line, "OUT": out, "PATH": "/usr/bin:/bin"]
            try process.run()
            process.waitUntilExit()
            #expect(
                !FileManager.default.fileExists(atPath: canary), "\(shell) ran the canary in \(line.debugDescription)")
            try? FileManager.default.removeItem(atPath: canary)
            #expect(process.terminationStatus == 0, "\(shell) failed on \(line.debugDescription)")
            let read = FileManager.default.contents(atPath: out).map { [UInt8]($0) }
            #expect(read == Array(key.utf8), "\(shell) read \(line.debugDescription) otherwise")
        }
    }
}
