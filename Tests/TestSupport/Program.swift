import Foundation

/// Another program run to its end with Foundation's Process (a peer that computes the expected value: Python,
/// zbarimg, curl), its standard input given and its standard output read.
public enum Program {
    /// What one run printed on standard output, and how it ended.
    public struct Output: Sendable {
        public var status: Int32
        public var data: Data
        public var text: String { String(decoding: data, as: UTF8.self) }
    }

    /// Runs `executable` with `arguments`: `stdin` written and closed first, standard error left to the test's own
    /// unless `quiet`.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: String? = nil, quiet: Bool = false
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let input = Pipe()
        let output = Pipe()
        if stdin != nil { process.standardInput = input }
        process.standardOutput = output
        if quiet { process.standardError = FileHandle.nullDevice }
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, data: data)
    }

    /// `python3 -c script arguments…`.
    public static func python(_ script: String, _ arguments: [String] = [], stdin: String? = nil) throws -> Output {
        try run("/usr/bin/python3", ["-c", script] + arguments, stdin: stdin)
    }
}

/// Polling with a deadline, for what another thread or process does in its own time.
public enum Poll {
    /// Checks `condition` every `interval` until it holds or `timeout` passes; answers its last value.
    @discardableResult
    public static func until(
        timeout: TimeInterval, interval: TimeInterval = 0.02, _ condition: () throws -> Bool
    ) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: interval)
        }
        return try condition()
    }
}
