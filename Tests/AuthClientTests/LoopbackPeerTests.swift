import AuthClient
import AuthCore
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 14, item 1: another local user who read the authorize URL cannot deliver a callback to the loopback
/// receiver; the attempt never hears of it, and this user's own callback still gets through.
@Suite struct LoopbackPeerTests {
    /// Counts what reached the sign-in.
    final class Deliveries: @unchecked Sendable {
        private let lock = NSLock()
        private var states: [String] = []
        func record(_ parsed: Result<Callback, CallbackParser.Failure>) -> CallbackVerdict {
            lock.lock()
            defer { lock.unlock() }
            if case .success(let callback) = parsed { states.append(callback.state ?? "") } else { states.append("?") }
            return .accepted
        }
        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return states
        }
    }

    /// `curl` as the given user (nil: this one); returns the HTTP status it got.
    func callback(_ url: String, asNobody: Bool) throws -> String {
        let process = Process()
        let curl = ["/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "10", url]
        if asNobody {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups"] + curl
        } else {
            process.executableURL = URL(fileURLWithPath: curl[0])
            process.arguments = Array(curl.dropFirst())
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test func aCallbackFromAnotherUsersSocketIsRefusedWithoutReachingTheAttempt() throws {
        guard getuid() == 0, access("/usr/bin/setpriv", X_OK) == 0, access("/usr/bin/curl", X_OK) == 0 else {
            print("skipped: needs root, setpriv and curl to act as another user")
            return
        }
        let deliveries = Deliveries()
        let receiver = try LoopbackReceiver(pages: CallbackPages()) { parsed, _ in deliveries.record(parsed) }
        defer { receiver.stop() }
        let stolen = receiver.redirectURI + "?code=attacker-code&state=known-state"
        #expect(try callback(stolen, asNobody: true) == "403")
        #expect(deliveries.all.isEmpty)
        #expect(try callback(receiver.redirectURI + "?code=own-code&state=known-state", asNobody: false) == "200")
        #expect(deliveries.all == ["known-state"])
    }

    @Test func theOwnerIsReadFromTheKernelsSocketTable() {
        // Two sockets of one connection, as /proc/net/tcp lists them (client port 0xC350, server port 0x1F90).
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0
               1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4
               2: 0100007F:C350 0100007F:1F90 01 00000000:00000000 00:00000000 00000000 65534        0 3 1 0 20 4
            """
        #expect(LoopbackPeer.owner(in: table, peerPort: 50_000, serverPort: 8080) == 65_534)
        #expect(LoopbackPeer.owner(in: table, peerPort: 50_001, serverPort: 8080) == nil)
    }
}
