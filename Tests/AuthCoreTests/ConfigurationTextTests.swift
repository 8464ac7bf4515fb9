import AuthCore
import Foundation
import Testing

/// Config text reaches HTTP requests, git's credential lines and terminals, so a control character in any
/// value or member name is refused at load, with the field named.
@Suite struct ConfigurationTextTests {
    func problem(_ json: String) -> String? {
        do {
            _ = try Configuration(json: Data(json.utf8))
            return nil
        } catch {
            return error.description
        }
    }

    @Test func aControlCharacterAnywhereIsRefusedNamingTheField() {
        #expect(
            problem(#"{"backends": {"corp": {"type": "turnkey", "configID": "c\tx"}}}"#)
                == "backends.corp.configID contains a control character (a newline, tab or escape)")
        #expect(
            problem(#"{"providers": {"google": {"scopes": ["openid", "email\u001b[2J"]}}}"#)?
                .hasPrefix("providers.google.scopes[1] contains") == true)
        #expect(
            problem(#"{"providers": {"goo\ngle": {"clientID": "x"}}}"#)?.hasPrefix("providers.goo\\u{A}gle ") == true)
        #expect(problem(#"{"gitCredentials": {"h": {"session": "s", "username": "a\u0085b"}}}"#) != nil)
        #expect(problem(#"{"listen": "127.0.0.1:8080\r"}"#)?.hasPrefix("listen contains") == true)
        // Printable text, however unusual, is left alone.
        #expect(problem(#"{"providers": {"oidc": {"clientID": "東京 ' \" \\ $(x) é"}}, "listen": "127.0.0.1:1"}"#) == nil)
    }
}

/// What a provider's JSON can put in a token: Foundation's decoder refuses invalid UTF-8 and lone surrogate escapes,
/// so every token string is valid Unicode text by the time anything quotes it for a shell.
@Suite struct JSONValueTextTests {
    @Test func invalidUTF8InAStringIsRefused() {
        for bad in [[UInt8]([0xFF]), [0xC0, 0xA7], [0xED, 0xA0, 0x80]] {
            let document = Array(#"{"access_token":"a"#.utf8) + bad + Array(#"b"}"#.utf8)
            #expect(throws: JSONValue.ParseFailure.self) { try JSONValue.parse(document) }
        }
    }

    @Test func aLoneSurrogateEscapeIsRefused() {
        #expect(throws: JSONValue.ParseFailure.self) { try JSONValue.parse(#"{"access_token":"a\ud800b"}"#) }
        #expect(throws: JSONValue.ParseFailure.self) { try JSONValue.parse(#"{"access_token":"a\udc00"}"#) }
    }
}
