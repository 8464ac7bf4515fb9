import AuthClient
import AuthCore
import Foundation
import LoopbackHTTP
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Another local user who read the authorize URL cannot deliver a callback to the loopback
/// receiver; the attempt never hears of it, and this user's own callback still gets through.
@Suite struct LoopbackPeerTests {
    /// Counts what reached the sign-in.
    typealias Deliveries = Recorded<String>

    /// `curl` as the given user (nil: this one); returns the HTTP status it got.
    func callback(_ url: String, asNobody: Bool, curlOptions: [String] = []) throws -> String {
        let curl =
            ["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10"] + curlOptions + [url]
        let command = asNobody ? [OtherUser.setpriv] + OtherUser.wrap(curl) : curl
        return try Program.run(command[0], Array(command.dropFirst()), quiet: true).text
    }

    /// A user who binds another loopback address with the receiver's own port and connects
    /// from it makes a connection whose two sockets share both ports (127.0.0.N:P to 127.0.0.1:P). Matching on
    /// ports took whichever row came first, our own accepted socket included; the whole 4-tuple tells them apart.
    @Test func aCallbackFromAnotherUsersSocketIsRefusedWithoutReachingTheAttempt() throws {
        guard try OtherUser.available() else { return }
        guard access("/usr/bin/curl", X_OK) == 0 else {
            return try SecurityTestPrecondition.unavailable("curl is not installed")
        }
        let deliveries = Deliveries()
        let receiver = try LoopbackReceiver(pages: CallbackPages()) { parsed, _ in deliveries.record(parsed) }
        defer { receiver.stop() }
        let stolen = receiver.redirectURI + "?code=attacker-code&state=known-state"
        #expect(try callback(stolen, asNobody: true) == "403")
        // The kernel's table order decides which row a first-match check meets first: several source addresses
        // make sure both orders are met.
        for host in 2...9 {
            let bound = ["--interface", "127.0.0.\(host)", "--local-port", "\(receiver.port)"]
            #expect(try callback(stolen, asNobody: true, curlOptions: bound) == "403", "from 127.0.0.\(host)")
        }
        #expect(deliveries.all.isEmpty)
        #expect(try callback(receiver.redirectURI + "?code=own-code&state=known-state", asNobody: false) == "200")
        // This user's own connection from such an address still gets through.
        let own = ["--interface", "127.0.0.10", "--local-port", "\(receiver.port)"]
        let mine = receiver.redirectURI + "?code=own-code&state=other-state"
        #expect(try callback(mine, asNobody: false, curlOptions: own) == "200")
        #expect(deliveries.all == ["known-state", "other-state"])
    }

    /// Rows as an x86-64 kernel writes them (tcp4_seq_show, tcp6_seq_show): each 32-bit word of an address is the
    /// number its bytes make little-endian, so 127.0.0.1 is 0100007F; ports are plain hex (0x1F90 = 8080).
    static let heading =
        "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode"
    static func row(_ local: String, _ remote: String, state: String = "01", uid: String, inode: Int) -> String {
        "   0: \(local) \(remote) \(state) 00000000:00000000 00:00000000 00000000 \(uid)        0 \(inode) 1 "
            + "0000000000000000 20 4 30 10 -1"
    }
    static let server = TCPEndpoint(address: [127, 0, 0, 1], port: 8080)!

    @Test func theOwnerIsTheRowWhoseEndsAreTheConnectionsEndsSwapped() {
        // 127.0.0.2:8080 (nobody) connected to the receiver 127.0.0.1:8080 (root): our accepted socket's row has
        // the same two ports and comes first; only the row whose local end is the peer is the peer's.
        let table = [
            Self.heading,
            Self.row("0100007F:1F90", "00000000:0000", state: "0A", uid: "0", inode: 100),
            Self.row("0100007F:1F90", "0200007F:1F90", uid: "0", inode: 101),
            Self.row("0200007F:1F90", "0100007F:1F90", uid: "65534", inode: 102),
        ].joined(separator: "\n")
        let peer = TCPEndpoint(address: [127, 0, 0, 2], port: 8080)!
        #expect(LoopbackPeer.owner(inTables: [table], of: peer, connectedTo: Self.server) == 65_534)
        // Seen from the accepted socket's side the same table names root, as it should: that row is ours.
        #expect(LoopbackPeer.owner(inTables: [table], of: Self.server, connectedTo: peer) == 0)
        let elsewhere = TCPEndpoint(address: [127, 0, 0, 3], port: 8080)!
        #expect(LoopbackPeer.owner(inTables: [table], of: elsewhere, connectedTo: Self.server) == nil)
    }

    @Test func anIPv6SocketConnectedToTheIPv4ReceiverIsFoundByItsMappedAddress() {
        // A dual-stack socket that reached 127.0.0.1 is listed in tcp6 with ::ffff:127.0.0.2 and ::ffff:127.0.0.1.
        let tcp6 = [
            Self.heading,
            Self.row(
                "0000000000000000FFFF00000200007F:C350", "0000000000000000FFFF00000100007F:1F90", uid: "1000",
                inode: 7),
            Self.row(
                "00000000000000000000000001000000:C351", "00000000000000000000000001000000:1F90", uid: "5", inode: 8),
        ].joined(separator: "\n")
        let peer = TCPEndpoint(address: [127, 0, 0, 2], port: 50_000)!
        #expect(LoopbackPeer.owner(inTables: [Self.heading, tcp6], of: peer, connectedTo: Self.server) == 1000)
        // ::1 is IPv6, not 127.0.0.1.
        let loopback6 = TCPEndpoint(address: Array(repeating: 0, count: 15) + [1], port: 50_001)!
        let server6 = TCPEndpoint(address: Array(repeating: 0, count: 15) + [1], port: 8080)!
        #expect(LoopbackPeer.owner(inTables: [tcp6], of: loopback6, connectedTo: Self.server) == nil)
        #expect(LoopbackPeer.owner(inTables: [tcp6], of: loopback6, connectedTo: server6) == 5)
    }

    @Test func anythingAmbiguousHasNoOwner() {
        let peer = TCPEndpoint(address: [127, 0, 0, 1], port: 50_000)!
        let ours = Self.row("0100007F:C350", "0100007F:1F90", uid: "0", inode: 9)
        // The same row twice (the kernel's text is read in chunks while sockets come and go) is one socket.
        #expect(LoopbackPeer.owner(inTables: [Self.heading, ours, ours], of: peer, connectedTo: Self.server) == 0)
        // Two sockets with that tuple (a TIME_WAIT row beside a live one, or a forged second table) are refused,
        // whichever owners they name.
        let other = Self.row("0100007F:C350", "0100007F:1F90", uid: "0", inode: 10)
        let timeWait = Self.row("0100007F:C350", "0100007F:1F90", state: "06", uid: "0", inode: 0)
        #expect(LoopbackPeer.owner(inTables: [ours, other], of: peer, connectedTo: Self.server) == nil)
        #expect(LoopbackPeer.owner(inTables: [ours, timeWait], of: peer, connectedTo: Self.server) == nil)
        // An owner that does not read, or no table at all.
        let garbled = Self.row("0100007F:C350", "0100007F:1F90", uid: "x", inode: 11)
        #expect(LoopbackPeer.owner(inTables: [garbled], of: peer, connectedTo: Self.server) == nil)
        #expect(LoopbackPeer.owner(inTables: [], of: peer, connectedTo: Self.server) == nil)
    }
}

extension Recorded<String> {
    /// Notes the state of a callback that reached the sign-in ("?" for one that did not parse) and accepts it.
    func record(_ parsed: Result<Callback, CallbackParser.Failure>) -> CallbackVerdict {
        if case .success(let callback) = parsed { append(callback.state ?? "") } else { append("?") }
        return .accepted
    }
}
