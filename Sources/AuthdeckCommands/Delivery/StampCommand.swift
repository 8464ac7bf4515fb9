import Foundation
import SessionStorage

/// `authdeck stamp [--session KEY] --body FILE|-`: the `X-Stamp` header value that makes a request body usable
/// with Turnkey's API under a stored Turnkey session (its P-256 session key never leaves the store).
enum StampCommand {
    /// Bodies larger than this are refused (Turnkey's requests are small JSON documents).
    static let maximumBodyBytes = 16 << 20

    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let key = try global.session(or: arguments.positionals(atMost: 1).first)
        guard let source = arguments.value("body") else { throw .usage("stamp needs --body FILE (or - for stdin)") }
        let body = try readBody(source, global)
        let store = try StoreCommands.requireStore(global)
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(key) }
        guard let privateKeyHex = session.secrets.privateKeyHex else {
            throw CommandFailure(
                .failed,
                "session '\(session.record.key)' holds no P-256 session key "
                    + "(stamp is for turnkey sessions)")
        }
        if let expiresAt = session.record.expiresAt, expiresAt <= global.environment.now() {
            throw CommandFailure(
                .failed,
                "session '\(session.record.key)' expired at "
                    + "\(SessionJSON.iso8601(expiresAt)); sign in again")
        }
        let value = try TurnkeyStamp.value(body: body, privateKeyHex: privateKeyHex)
        global.out((arguments.has("header") ? TurnkeyStamp.headerName + ": " : "") + value + "\n")
        return .done
    }

    private static func readBody(_ source: String, _ global: GlobalOptions) throws(CommandFailure) -> [UInt8] {
        let data: Data?
        if source == "-" {
            data = Data((try? global.environment.input.readToEnd()) ?? [])
        } else {
            data = FileManager.default.contents(atPath: source)
        }
        guard let data else { throw CommandFailure(.failed, "cannot read \(source)") }
        guard data.count <= maximumBodyBytes else {
            throw CommandFailure(.failed, "\(source) is larger than \(maximumBodyBytes >> 20) MiB")
        }
        return [UInt8](data)
    }
}
