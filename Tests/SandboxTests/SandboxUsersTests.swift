import Foundation
import Sandbox
import Testing

@Suite struct SandboxUsersTests {
    @Test func theResourceFileAndTheBuiltInListAgree() throws {
        let resource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources/sandbox-users.json")
        let fromFile = try SandboxUsers.load(path: resource.path)
        #expect(fromFile == SandboxUsers.builtIn)
        let byName = Dictionary(uniqueKeysWithValues: fromFile.map { ($0.name, $0) })
        #expect(byName["ada"]?.existing == true && byName["ada"]?.email != nil && byName["ada"]?.phone != nil)
        #expect(byName["bob"]?.existing == true && byName["bob"]?.phone != nil && byName["bob"]?.email == nil)
        #expect(byName["cleo"]?.existing == false)
        #expect(byName["dora"]?.totpSecret != nil)
    }

    @Test func contactsAreNormalisedAndExistingDefaultsToTrue() throws {
        let users = try SandboxUsers.decode(
            Array(
                """
                [{"name": "eve", "email": "Eve@EXAMPLE.org", "phone": "0044 20 7946 0000"}]
                """.utf8))
        #expect(users == [SandboxUser(name: "eve", email: "eve@example.org", phone: "+442079460000", existing: true)])
    }

    @Test(arguments: [
        "{}", "[{\"email\": \"a@b.co\"}]", "[{\"name\": \"\"}]", "[{\"name\": \"a b\"}]",
        "[{\"name\": \"a\"}, {\"name\": \"a\"}]", "[{\"name\": \"a\", \"email\": \"nope\"}]",
        "[{\"name\": \"a\", \"phone\": \"5550100\"}]", "[{\"name\": \"a\", \"totpSecret\": \"not base32!\"}]",
        "[{\"name\": \"a\", \"existing\": \"yes\"}]",
        "[{\"name\": \"a\", \"email\": \"x@y.co\"}, {\"name\": \"b\", \"email\": \"x@y.co\"}]",
    ])
    func badFilesAreRefusedWithAReason(json: String) {
        #expect(throws: SandboxUsers.Failure.self) { try SandboxUsers.decode(Array(json.utf8)) }
    }

    @Test func consentPagesEscapeWhatTheyShow() throws {
        let sandbox = try SandboxFixture { $0.users = [SandboxUser(name: "ada", email: "a&b@example.com")] }
        let page = try sandbox.get(
            sandbox.authorizeTarget(
                "google", clientID: "<script>x</script>",
                challenge: String(repeating: "c", count: 43)))
        #expect(page.status == 200)
        #expect(!page.text.contains("<script>x"))
        #expect(page.text.contains("&lt;script&gt;x"))
        #expect(page.text.contains("a&amp;b@example.com"))
    }
}
