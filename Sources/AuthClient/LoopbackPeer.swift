import Foundation
import LoopbackHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Who sent a request to the loopback receiver. Any local user can connect to 127.0.0.1, and another user can read
/// the authorize URL (state, PKCE challenge) from the browser's command line in /proc; so a callback counts only
/// when the connecting socket belongs to the user running authdeck. The kernel lists every TCP socket with its
/// owner in /proc/net/tcp and /proc/net/tcp6: the peer's is the one whose local port is the peer port and whose
/// remote port is ours.
public enum LoopbackPeer {
    /// Whether the request came from a socket of this process's user; false when that cannot be told.
    public static func isCurrentUser(_ request: HTTPRequest) -> Bool {
        guard let peerPort = request.peerPort, let localPort = request.localPort else { return false }
        return owner(peerPort: peerPort, serverPort: localPort) == geteuid()
    }

    /// The uid owning the TCP socket with local port `peerPort` connected to remote port `serverPort`.
    public static func owner(
        peerPort: UInt16, serverPort: UInt16,
        tables: [String] = ["/proc/net/tcp", "/proc/net/tcp6"]
    ) -> uid_t? {
        for table in tables {
            guard let text = read(table) else { continue }
            if let uid = owner(in: text, peerPort: peerPort, serverPort: serverPort) { return uid }
        }
        return nil
    }

    /// The same, in the text of one table (`sl local_address rem_address st … uid …`, addresses as `HEX:PORT`).
    public static func owner(in table: String, peerPort: UInt16, serverPort: UInt16) -> uid_t? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, port(fields[1]) == peerPort, port(fields[2]) == serverPort else { continue }
            return uid_t(fields[7])
        }
        return nil
    }

    /// The whole of a /proc file, read to its end (their size is 0 to stat, so Foundation's readers see nothing).
    private static func read(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = Glibc.read(descriptor, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func port(_ address: Substring) -> UInt16? {
        guard let colon = address.lastIndex(of: ":") else { return nil }
        return UInt16(address[address.index(after: colon)...], radix: 16)
    }
}
