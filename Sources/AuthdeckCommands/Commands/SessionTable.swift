import AuthCore
import Foundation
import SessionStorage
import TerminalUI

/// The table `authdeck list` prints: the mark (`@` the session this folder's `.authdeck-session` chose, else `*` the
/// selected one), key, backend, provider, user, status and the signed time left the TUI shows. Columns are padded
/// by the columns a terminal gives each character, so wide (CJK) and combining names stay aligned.
enum SessionTable {
    static func render(_ entries: [StoreEntry], now: Date, directorySession: String? = nil) -> String {
        let header = ["", "KEY", "BACKEND", "PROVIDER", "USER", "STATUS", "EXPIRES IN"]
        let rows = entries.map { entry -> [String] in
            let record = entry.record
            return [
                record.key == directorySession ? "@" : entry.isSelected ? "*" : "", record.key, record.backend,
                record.provider, record.userLabel,
                record.status(at: now).rawValue, expiresIn(record.expiresAt, now: now),
            ]
        }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() {
                widths[column] = max(widths[column], DisplayText.width(of: DisplayText.sanitized(cell)))
            }
        }
        var text = ""
        for row in [header] + rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padded(toColumns: widths[column])
            }
            text += cells.joined(separator: " ") + "\n"
        }
        return text
    }

    /// The signed time left as the TUI's EXPIRES column shows it (`4m 05s`, `-2h 10m`), or `-` when the expiry is
    /// unknown.
    static func expiresIn(_ expiresAt: Date?, now: Date) -> String {
        guard let expiresAt else { return "-" }
        return DurationText.signed(TimeText.secondsUntil(expiresAt, from: now))
    }
}

extension String {
    /// The string followed by spaces up to `width` terminal columns (never truncated), as sanitised output shows it.
    fileprivate func padded(toColumns width: Int) -> String {
        let columns = DisplayText.width(of: DisplayText.sanitized(self))
        return columns >= width ? self : self + String(repeating: " ", count: width - columns)
    }
}
