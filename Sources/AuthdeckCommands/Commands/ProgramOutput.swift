import Foundation

/// A helper program run for what it prints (git's config for `doctor`, tmux's paste buffers for the TUI): found on
/// `PATH`, no input, its errors dropped.
enum ProgramOutput {
    /// What `name ARGUMENTS` printed on standard output when it ran and exited 0; nil when it is not on `PATH`,
    /// could not start or failed.
    static func run(_ name: String, _ arguments: [String], environment: [String: String]) -> [UInt8]? {
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return nil
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? Array(data) : nil
    }
}
