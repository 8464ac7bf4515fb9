import AuthCore
import Foundation
import SessionStorage

/// The table `authdeck list` prints: the selected mark, key, backend, provider, user, status and time left.
enum SessionTable {
    static func render(_ entries: [StoreEntry], now: Date) -> String {
        let header = ["", "KEY", "BACKEND", "PROVIDER", "USER", "STATUS", "EXPIRES IN"]
        let rows = entries.map { entry -> [String] in
            let record = entry.record
            return [
                entry.isSelected ? "*" : "", record.key, record.backend, record.provider, record.userLabel,
                record.status(at: now).rawValue, expiresIn(record.expiresAt, now: now),
            ]
        }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        var text = ""
        for row in [header] + rows {
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padded(to: widths[column])
            }
            text += cells.joined(separator: " ") + "\n"
        }
        return text
    }

    /// `42m`, `3h12m`, `2d4h`, `expired`, or `-` when the expiry is unknown.
    static func expiresIn(_ expiresAt: Date?, now: Date) -> String {
        guard let expiresAt else { return "-" }
        let seconds = Int(expiresAt.timeIntervalSince(now))
        if seconds <= 0 { return "expired" }
        if seconds < 60 { return "\(seconds)s" }
        let minutes = seconds / 60
        if minutes < 60 { return "\(minutes)m" }
        let hours = minutes / 60
        if hours < 48 { return minutes % 60 == 0 ? "\(hours)h" : "\(hours)h\(minutes % 60)m" }
        return "\(hours / 24)d\(hours % 24 == 0 ? "" : "\(hours % 24)h")"
    }
}
