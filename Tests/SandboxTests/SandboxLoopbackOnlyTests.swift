import Foundation
import Sandbox
import Testing

/// The sandbox signs anyone in, so it listens on 127.0.0.1 alone, and every answer carries the
/// mark that lets a real backend tell it reached the sandbox by mistake.
@Suite struct SandboxLoopbackOnlyTests {
    @Test func itListensOnLoopbackOnly() throws {
        let fixture = try SandboxFixture()
        let port = String(format: "%04X", fixture.port)
        var listening: [String] = []
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            let text = (try? String(contentsOfFile: table, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // st 0A is LISTEN; the local address is HEX:PORT.
                if fields.count > 3, fields[3] == "0A", fields[1].hasSuffix(":" + port) {
                    listening.append(String(fields[1]))
                }
            }
        }
        #expect(listening == ["0100007F:" + port], "listening sockets: \(listening)")
    }

    @Test func everyAnswerCarriesTheSandboxMark() throws {
        let fixture = try SandboxFixture()
        for target in ["/oidc/generic/.well-known/openid-configuration", "/no-such-route"] {
            let reply = try SandboxHTTP.request("GET", port: fixture.port, target)
            #expect(reply.headers["authdeck-sandbox"] == "1", "\(target): \(reply.headers)")
        }
    }
}
