import AuthCore
import Foundation
import SessionStorage
import TerminalUI

/// What `authdeck status` prints: the store's lock state and key source, one session's expiries, and what the
/// provider's user endpoint said of the access token when it could be asked (`server`, nil when not asked).
enum StatusReport {
    static func text(
        entry: StoreEntry?, location: StoreLocation, source: MasterKeySource?, unlocked: Bool,
        now: Date, server: String? = nil, tokenType: String? = nil, endpoints: SessionEndpoints? = nil,
        chosenBy: String? = nil
    ) -> String {
        var text = "store:          \(location.databasePath)\n"
        text += "master key:     \(source?.rawValue ?? "not created yet")\n"
        text += "unlocked:       \(unlocked ? "yes (cached in the kernel keyring)" : "no")\n"
        guard let entry else { return text + "session:        none selected\n" }
        let record = entry.record
        text += "session:        \(record.key)\(entry.isSelected ? " (selected)" : "")\n"
        if let chosenBy { text += "chosen by:      \(chosenBy)\n" }
        text += "user:           \(record.userLabel)\n"
        text += "provider:       \(record.provider) via \(record.backend)\n"
        if endpoints?.isMachineSession == true {
            text += "kind:           machine session (client credentials: no user, the client is the subject)\n"
        } else if let grant = endpoints?.grant {
            text += "grant:          \(grant)\n"
        }
        if let parent = endpoints?.parentSession { text += "parent session: \(parent) (token exchange)\n" }
        text += "status:         \(record.status(at: now).rawValue)\n"
        if let tokenType { text += "token type:     \(tokenType)\n" }
        text += "access expires: \(describe(record.expiresAt, now: now))\n"
        text += "refresh token:  "
        if endpoints?.isMachineSession == true {
            text += "none; renewed by asking again with the client's credentials"
        } else if record.refreshable {
            text += entry.refreshExpiresAt.map { "held, expires \(describe($0, now: now))" } ?? "held, no expiry given"
        } else {
            text += "none"
        }
        text +=
            "\nchecked:        " + (server.map { "against the server: \($0)" } ?? "locally (no user endpoint to ask)")
            + "\n"
        return text
    }

    static func json(
        entry: StoreEntry?, location: StoreLocation, source: MasterKeySource?, unlocked: Bool,
        now: Date, server: String? = nil, tokenType: String? = nil, endpoints: SessionEndpoints? = nil,
        chosenBy: String? = nil
    ) -> String {
        var text = "{\"store\":{\"path\":\(SessionJSON.quoted(location.databasePath)),"
        text += "\"keySource\":\(SessionJSON.quoted(source?.rawValue)),\"unlocked\":\(unlocked)},\"session\":"
        if let entry {
            let record = entry.record
            text += "{\"key\":\(SessionJSON.quoted(record.key)),\"selected\":\(entry.isSelected),"
            text += "\"chosenBy\":\(SessionJSON.quoted(chosenBy)),"
            text += "\"status\":\(SessionJSON.quoted(record.status(at: now).rawValue)),"
            text += "\"expiresAt\":\(SessionJSON.quoted(record.expiresAt.map(SessionJSON.iso8601))),"
            text += "\"refreshable\":\(record.refreshable),"
            if let tokenType { text += "\"tokenType\":\(SessionJSON.quoted(tokenType))," }
            if let endpoints, endpoints.grant != nil || endpoints.parentSession != nil {
                text += "\"machine\":\(endpoints.isMachineSession),\"grant\":\(SessionJSON.quoted(endpoints.grant)),"
                text += "\"parentSession\":\(SessionJSON.quoted(endpoints.parentSession)),"
            }
            text += "\"refreshExpiresAt\":\(SessionJSON.quoted(entry.refreshExpiresAt.map(SessionJSON.iso8601))),"
            text += "\"serverChecked\":\(server != nil),\"server\":\(SessionJSON.quoted(server))}"
        } else {
            text += "null"
        }
        return text + "}\n"
    }

    private static func describe(_ date: Date?, now: Date) -> String {
        guard let date else { return "unknown" }
        let left = TimeText.secondsUntil(date, from: now)
        let when = left > 0 ? "in " + DurationText.remaining(left) : "expired \(DurationText.text(left)) ago"
        return "\(SessionJSON.iso8601(date)) (\(left == 0 ? "expired now" : when))"
    }
}
