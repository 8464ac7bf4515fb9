import Foundation
import LoopbackHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Who sent a request to the loopback receiver. Any local user can connect to 127.0.0.1, and another user can read
/// the authorize URL (state, PKCE challenge) from the browser's command line in /proc; so a callback counts only
/// when the connecting socket belongs to the user running authdeck. The kernel lists every TCP socket with its
/// owner in /proc/net/tcp and /proc/net/tcp6. The peer's socket is the one whose local end is the connection's
/// remote end and whose remote end is the connection's local end: all four of address and port, since ports alone
/// also match our own accepted socket when the peer bound the same port on another loopback address (127.0.0.2).
public enum LoopbackPeer {
    /// Whether the request came from a socket of this process's user; false when that cannot be told.
    public static func isCurrentUser(_ request: HTTPRequest) -> Bool {
        guard let peer = request.peer, let local = request.local else { return false }
        return owner(of: peer, connectedTo: local) == geteuid()
    }

    /// The uid owning the TCP socket whose own end is `peer` and whose remote end is `local`; nil unless exactly
    /// one socket in the kernel's tables is that one and its owner reads.
    public static func owner(
        of peer: TCPEndpoint, connectedTo local: TCPEndpoint,
        tables: [String] = ["/proc/net/tcp", "/proc/net/tcp6"]
    ) -> uid_t? {
        // Each read walks the kernel's whole established-socket hash (milliseconds of CPU), so a later table is read
        // only while the earlier ones hold no row for the connection. The kernel keeps one socket per 4-tuple, so
        // a row found in /proc/net/tcp cannot be matched again in tcp6; several rows in one table still refuse.
        var found: [Row] = []
        for table in tables {
            guard let text = Self.read(table) else { continue }
            found += rows(text).filter { $0.local == peer && $0.remote == local }
            if !found.isEmpty { break }
        }
        return owner(of: found)
    }

    /// The same, in the text of the tables (`sl local_address rem_address st … uid timeout inode …`, addresses as
    /// `HEX:PORT`). A row listed twice (the kernel's text is not one snapshot) counts once; two different sockets,
    /// or an owner that does not read, answer nil.
    public static func owner(inTables tables: [String], of peer: TCPEndpoint, connectedTo local: TCPEndpoint)
        -> uid_t?
    {
        owner(of: tables.flatMap(rows).filter { $0.local == peer && $0.remote == local })
    }

    /// The owner of the one socket among `matches` (a row listed twice counts once); nil for none or several.
    private static func owner(of matches: [Row]) -> uid_t? {
        let distinct = Set(matches)
        guard distinct.count == 1, let only = distinct.first else { return nil }
        return only.uid
    }

    /// One socket as a table lists it; only the fields the check needs.
    struct Row: Hashable {
        let local: TCPEndpoint
        let remote: TCPEndpoint
        let uid: uid_t?
        let inode: Substring
    }

    /// The rows of one table whose two addresses read; the heading and anything malformed are left out.
    static func rows(_ table: String) -> [Row] {
        table.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 9, let local = endpoint(fields[1]), let remote = endpoint(fields[2]) else {
                return nil
            }
            return Row(local: local, remote: remote, uid: uid_t(fields[7]), inode: fields[9])
        }
    }

    /// `0100007F:1F90` or `00000000000000000000FFFF0100007F:1F90`: the kernel prints an address as 32-bit words in
    /// hex, each as the number its four bytes make in this machine's byte order, and the port in hex.
    static func endpoint(_ text: Substring) -> TCPEndpoint? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...], radix: 16)
        else { return nil }
        let hex = Array(text[..<colon].utf8)
        guard hex.count == 8 || hex.count == 32 else { return nil }
        var address: [UInt8] = []
        for start in stride(from: 0, to: hex.count, by: 8) {
            guard let word = UInt32(String(decoding: hex[start..<start + 8], as: UTF8.self), radix: 16) else {
                return nil
            }
            withUnsafeBytes(of: word) { address += $0 }
        }
        return TCPEndpoint(address: address, port: port)
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
}
