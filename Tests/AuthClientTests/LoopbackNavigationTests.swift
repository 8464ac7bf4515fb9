import AuthClient
import AuthCore
import Foundation
import Testing

/// Any web page the user has open can make the browser ask for the fixed loopback port (an
/// `<img>`, a fetch) and so deliver Portal's stateless redirect for an account of its own. The receiver takes only
/// the browser's own navigations, as its Fetch Metadata headers say; curl and browsers without them send neither
/// header and are taken, the question before such a session is stored being the guard then.
@Suite struct LoopbackNavigationTests {
    /// The status a raw GET of the receiver's callback answers, sent with `headers` (lines without CRLF).
    func status(_ receiver: LoopbackReceiver, _ headers: [String]) throws -> Int? {
        let request =
            "GET \(receiver.callbackPath)?token=page-token&state=known-state HTTP/1.1\r\n"
            + "Host: 127.0.0.1:\(receiver.port)\r\n" + headers.map { $0 + "\r\n" }.joined()
            + "Connection: close\r\n\r\n"
        return RawHTTP.status(of: try RawHTTP.exchange(port: receiver.port, request))
    }

    @Test func whatAPageEmbedsOrFetchesIsRefusedAndANavigationIsTaken() throws {
        let deliveries = LoopbackPeerTests.Deliveries()
        let receiver = try LoopbackReceiver(pages: CallbackPages()) { parsed, _ in deliveries.record(parsed) }
        defer { receiver.stop() }
        // What Chromium and Firefox send for <img src>, fetch(url, {mode: "no-cors"}) and an <iframe> on a page
        // of another site.
        let image = ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors", "Sec-Fetch-Dest: image"]
        let fetch = ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors", "Sec-Fetch-Dest: empty"]
        let frame = ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate", "Sec-Fetch-Dest: iframe"]
        for headers in [image, fetch, frame] {
            #expect(try status(receiver, headers) == 403, "\(headers)")
        }
        #expect(deliveries.all.isEmpty)
        // The provider's redirect: a top-level navigation (Sec-Fetch-User only when a click started it).
        let navigation = [
            "Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate", "Sec-Fetch-Dest: document",
            "Sec-Fetch-User: ?1",
        ]
        #expect(try status(receiver, navigation) == 200)
        #expect(try status(receiver, []) == 200)
        #expect(deliveries.all == ["known-state", "known-state"])
    }
}
