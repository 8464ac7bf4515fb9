import AuthCore
import Foundation

/// Values the machine tests share: a fixed clock, attempts of each method, an issued session.
enum Fixture {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let deadline = t0.addingTimeInterval(300)
    static let state = "af0ifjsldkj-state-0123"

    static func browserAttempt(id: UInt64 = 1, state: String = Fixture.state) -> Attempt {
        Attempt(
            id: AttemptID(id), backend: "direct", provider: "google",
            method: .browser(redirectURI: "http://127.0.0.1:4711/callback"), state: state,
            codeVerifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", nonce: "n-0S6_WzA2Mj", deadline: deadline)
    }

    static func otpAttempt(id: UInt64 = 2) -> Attempt {
        Attempt(
            id: AttemptID(id), backend: "turnkey", provider: "email",
            method: .oneTimeCode(
                contact: .email("ada@example.com"), format: try! OTPCodeFormat(length: 6, alphanumeric: false),
                otpID: nil),
            state: "otp-state-\(id)", codeVerifier: "", nonce: nil,
            sessionPublicKeyHex: String(repeating: "02", count: 33),
            deadline: deadline)
    }

    static func deviceAttempt(id: UInt64 = 3) -> Attempt {
        Attempt(
            id: AttemptID(id), backend: "direct", provider: "google", method: .device, state: "device-state",
            codeVerifier: "v", nonce: nil, deadline: deadline)
    }

    static let record = SessionRecord(
        key: "ada-google", backend: "direct", provider: "google", subject: "1234",
        email: "ada@example.com", issuer: "https://accounts.google.com", createdAt: t0,
        expiresAt: t0.addingTimeInterval(3600), refreshable: true)
    static let issued = IssuedSession(
        session: Session(record: record, secrets: SessionSecrets(accessToken: "at")),
        kind: .login)
    static let outcome = SignInOutcome(record: record, kind: .login)
    static let challenge = TOTPChallenge(userJwt: "user.jwt.value", enrolmentLink: nil, user: "ada", attemptsLeft: 3)
    static let goodCallback = Callback(code: "auth-code", state: state)

    /// A machine in each of the four states, reached only through events (as the owner would).
    static func idle() -> SignInStateMachine { SignInStateMachine() }

    static func awaiting(_ attempt: Attempt = browserAttempt()) -> SignInStateMachine {
        var machine = SignInStateMachine()
        _ = machine.startRequested(attempt)
        return machine
    }

    static func exchanging() -> SignInStateMachine {
        var machine = awaiting()
        _ = machine.callbackReceived(goodCallback, now: t0)
        return machine
    }

    static func totpRequired(_ challenge: TOTPChallenge = Fixture.challenge) -> SignInStateMachine {
        var machine = exchanging()
        _ = machine.totpChallenged(AttemptID(1), challenge)
        return machine
    }

    static func authenticated() -> SignInStateMachine {
        var machine = exchanging()
        _ = machine.sessionIssued(AttemptID(1), issued)
        _ = machine.persisted(AttemptID(1), record)
        return machine
    }
}
