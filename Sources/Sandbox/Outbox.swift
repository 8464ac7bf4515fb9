import Foundation
import Synchronization

/// Where the sandbox "sends" one-time codes: a JSON-lines file (`contact`, `otpId`, `code`, `sentAt`; a magic link
/// is `contact`, `link`, `sentAt`) that scripts and tests read, and the same line handed to `announce` (the command prints it on stdout).
/// Delivering codes is the sandbox's whole point, so these are the only secrets it ever writes out.
final class Outbox: Sendable {
    private let path: String?
    private let announce: (@Sendable (String) -> Void)?
    /// Serialises appends so two lines never interleave.
    private let lock = Mutex<Void>(())

    init(path: String?, announce: (@Sendable (String) -> Void)?) {
        self.path = path
        self.announce = announce
    }

    struct Failure: Error {
        let description: String
    }

    /// Appends one delivery; fails only when the file cannot be written, so the caller can refuse the request
    /// rather than hand out an otpId whose code nobody can read.
    func deliver(contact: String, otpID: String, code: String, sentAt: Double) throws(Failure) {
        try record(
            JSONText.line([
                "contact": contact, "otpId": otpID, "code": code, "sentAt": Self.timestamp(sentAt),
            ]))
    }

    private func record(_ line: String) throws(Failure) {
        try lock.withLock { _ throws(Failure) in
            if let path { try Self.append(line, to: path) }
        }
        announce?(line)
    }

    /// Appends one magic link (`contact`, `link`, `sentAt`): the address Portal's email would carry.
    func deliver(contact: String, link: String, sentAt: Double) throws(Failure) {
        try record(JSONText.line(["contact": contact, "link": link, "sentAt": Self.timestamp(sentAt)]))
    }

    private static func append(_ line: String, to path: String) throws(Failure) {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open the outbox \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(line.utf8)
        // One write with O_APPEND keeps each line whole even when another process appends too.
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw Failure(description: "cannot write the outbox \(path)")
        }
    }

    /// ISO 8601 in UTC with milliseconds, as the other JSON dates of authdeck.
    static func timestamp(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
