import AuthClient
import AuthCore
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The authdeck:// socket's folder cannot be prepared by another user, `open-url` hands a URL
/// only to a listener of the same user, and a receiver that did not start says so.
@Suite struct SchemeSocketTrustTests {
    static let nobody = OtherUser.uid
    let temporary = TemporaryFolder(prefix: "authdeck-trust")
    var folder: String { temporary.path }

    @Test func aFolderPreparedByAnotherUserIsRefused() throws {
        guard try OtherUser.available() else { return }
        // As the /tmp/authdeck-UID fallback: the other user made it first, open to all.
        let planted = folder + "/authdeck-0"
        try #require(mkdir(planted, 0o777) == 0 && chmod(planted, 0o777) == 0)
        try #require(chown(planted, Self.nobody, Self.nobody) == 0)
        #expect(throws: SignInError.self) {
            _ = try SchemeReceiver(socketPath: planted + "/authdeck/callback.sock") { _, _ in .accepted }
        }
        #expect(!FileManager.default.fileExists(atPath: planted + "/authdeck"))
        // The leaf planted inside a folder of ours: refused too.
        let ours = folder + "/run"
        try #require(mkdir(ours, 0o700) == 0 && mkdir(ours + "/authdeck", 0o700) == 0)
        try #require(chown(ours + "/authdeck", Self.nobody, Self.nobody) == 0)
        #expect(throws: SignInError.self) {
            _ = try SchemeReceiver(socketPath: ours + "/authdeck/callback.sock") { _, _ in .accepted }
        }
    }

    @Test func aReceiverThatCannotStartIsReported() throws {
        guard try OtherUser.available() else { return }
        let planted = folder + "/authdeck-0"
        try #require(mkdir(planted, 0o777) == 0 && chown(planted, Self.nobody, Self.nobody) == 0)
        let provider = try TestProvider()
        let presenter = RecordingPresenter()
        let backend = provider.directSignIn()
        let controller = SignInController(
            report: presenter.report, persist: PersistedSessions().persist,
            receivers: ReceiverOptions(schemeSocketPath: planted + "/authdeck/callback.sock"), browser: nil)
        controller.start(backend, timeout: 60)
        defer { controller.cancel() }
        _ = try #require(presenter.waitForBegin())
        #expect(
            presenter.receivers.contains { $0.hasPrefix("no authdeck://") && $0.contains(planted) },
            "receivers: \(presenter.receivers)")
    }

    @Test func openURLHandsNothingToAnotherUsersListener() throws {
        guard try OtherUser.available() else { return }
        try #require(chmod(folder, 0o777) == 0)
        let socketPath = folder + "/callback.sock"
        let received = folder + "/received"
        // Another user listens where open-url will connect, and writes down whatever it is sent.
        let listener = """
            import os, signal, socket
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind("\(socketPath)")
            os.chmod("\(socketPath)", 0o777)
            server.listen(1)
            open("\(folder)/ready", "w").close()
            client, _ = server.accept()
            client.settimeout(5)
            try:
                data = client.recv(65536)
            except OSError:
                data = b""
            open("\(received)", "wb").write(data)
            client.sendall(b"ok\\n")
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: OtherUser.setpriv)
        process.arguments = OtherUser.wrap(["/usr/bin/env", "python3", "-c", listener])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: folder + "/ready") {
            Thread.sleep(forTimeInterval: 0.02)
        }
        try #require(FileManager.default.fileExists(atPath: folder + "/ready"))
        #expect(throws: SignInError.self) {
            _ = try SchemeReceiver.handOver("authdeck://callback?code=secret-code&state=s", socketPath: socketPath)
        }
        for _ in 0..<100 where process.isRunning { Thread.sleep(forTimeInterval: 0.02) }
        let sent = (try? String(contentsOfFile: received, encoding: .utf8)) ?? ""
        #expect(!sent.contains("secret-code"))
    }
}
