import AuthCrypto
import Foundation

/// The one machine every sign-in runs through, in the TUI and on the command line alike (SPEC section 2).
///
/// A value type: events are methods named after what happened, each returns the `Action` its owner must run.
/// No I/O, clock or randomness inside; time comes in as `now`, attempts arrive fully built.
public struct SignInStateMachine: Sendable {
    /// Exactly the four states of SPEC section 2; everything else rides in their associated values.
    public enum State: Equatable, Sendable {
        /// Nothing in flight; the last attempt's error, if it ended in one, for display.
        case idle(lastError: SignInError?)
        /// A flow started and waits for a redirect, a pasted URL, a device approval or a typed code.
        case awaitingCallback(Attempt, Progress)
        /// Identity is proven, the backend wants a TOTP code; nothing is persisted yet.
        case totpRequired(Attempt, TOTPChallenge, Progress)
        /// A session was persisted and confirmed by the store.
        case authenticated(SignInOutcome)
    }

    /// Where a waiting attempt is inside its state. One value, so no pair of flags can disagree.
    public enum Progress: Equatable, Sendable {
        /// Waiting for the user or the browser.
        case waiting
        /// A request is out: code exchange, OTP or TOTP verification. Further input waits for its answer.
        case verifying
        /// The session came from a redirect without `state` that nothing binds to the attempt: the user is asked
        /// whether to keep it (`identityAnswered`); nothing is stored before the answer.
        case confirming(IssuedSession)
        /// The session is issued and being written to the store.
        case persisting(IssuedSession)
        /// The write failed; the issued session is held so that only the write can be retried.
        case storageFailed(IssuedSession)
        /// Cancel was asked while a request was out. Its answer is awaited (a session it issues would otherwise live
        /// on at the provider unseen), then revoked where the backend can, and nothing is stored.
        case cancelling
    }

    /// Commands for the owner. Exactly one place runs them (`run(_:)` in the owner).
    public enum Action: Equatable, Sendable {
        /// Nothing to do (an event the outside world raced into, already handled).
        case none
        /// Start the attempt: open the browser and receivers, start device polling, or send the one-time code.
        case begin(Attempt)
        /// Exchange what the callback brought for a session.
        case exchange(AttemptID, Grant)
        /// Ask the backend to verify a typed one-time code.
        case verifyCode(AttemptID, otpID: String, code: String)
        /// Ask the backend to verify a TOTP code.
        case verifyTOTP(AttemptID, userJwt: String, code: String)
        /// Send the one-time code again.
        case resendCode(AttemptID)
        /// Show whom the issued session signs in and ask whether to keep it; the answer is `identityAnswered`.
        case confirmIdentity(AttemptID, IssuedSession)
        /// Write the session to the store, then report `persisted` or `persistFailed`.
        case persist(AttemptID, IssuedSession)
        /// Show that the attempt is signed in (the session is stored).
        case report(SignInOutcome)
        /// Show an error; the attempt goes on waiting.
        case reject(SignInError)
        /// The attempt ended with this error: stop its receivers and polling, show the error.
        case fail(AttemptID, SignInError)
        /// Show the outcome of an attempt again: a replayed callback, never a second exchange.
        case replay(SignInOutcome)
        /// Show the attempt's step again: the redirect it already exchanged came again while it waits for its TOTP
        /// code (PortalSwift's `handleRedirect` answers the same step), never a second exchange.
        case replayStep(AttemptID)
        /// The attempt ended with this error, and this session it issued is not stored: revoke it if possible.
        case discard(AttemptID, IssuedSession, SignInError)
    }

    public private(set) var state: State
    /// The attempt that ended most recently and how; only to recognise replays and late callbacks (by its state,
    /// or by the digest of the Portal token it exchanged).
    private var ended: (state: String, tokenDigest: [UInt8]?, outcome: SignInOutcome?)?

    public init() {
        state = .idle(lastError: nil)
    }

    // MARK: - Events

    /// The user (or a script) asked for a new sign-in.
    public mutating func startRequested(_ attempt: Attempt) -> Action {
        if let refusal = startRefusal() { return refusal }
        state = .awaitingCallback(attempt, .waiting)
        return .begin(attempt)
    }

    /// Rule 1, asked before an attempt is made: while one runs, a start is refused and the running attempt is
    /// untouched (one sign-in at a time); nil when a start may go ahead.
    public func startRefusal() -> Action? {
        switch state {
        case .idle, .authenticated: return nil
        case .awaitingCallback, .totpRequired: return .reject(.signInInProgress)
        }
    }

    /// A redirect arrived from any receiver (loopback, custom scheme, paste).
    /// - Parameter fromOwnUser: whether the redirect came from the user's own processes (the receiver's peer
    ///   check; paste and the scheme socket always do). Only such a redirect may end an attempt without `state`.
    public mutating func callbackReceived(_ callback: Callback, now: Date, fromOwnUser: Bool = true) -> Action {
        switch state {
        case .awaitingCallback(let attempt, let progress):
            if now >= attempt.deadline { return end(attempt, .timedOut) }
            if callback.state == nil, let error = callback.error, !attempt.acceptsStatelessRedirect {
                // RFC 6749 4.1.2.1 wants `state` on error redirects too, but Authlib-based providers leave it out:
                // waiting out the timeout would hide the provider's answer. From anyone else it could be forged.
                let answer = SignInError.providerAnswered(
                    error, description: callback.errorDescription,
                    note: "the redirect came without state")
                guard fromOwnUser else { return .reject(answer) }
                guard case .waiting = progress else { return .none }  // the exchange already runs
                return end(attempt, Self.issuerRefusal(callback, attempt) ?? answer)
            }
            var taken = attempt
            if let received = callback.state {
                guard ConstantTime.equals(received, attempt.state) else {
                    // Rule 3: a forged or stray callback changes nothing; the right one may still come.
                    return .reject(.stateMismatch)
                }
            } else if !attempt.acceptsStatelessRedirect {
                return .reject(.stateMismatch)
            } else {
                taken.awaitsIdentityConfirmation = attempt.confirmsStatelessSession
            }
            guard case .waiting = progress else {
                // Rule 4: the state is single-use; a replay during the exchange starts nothing.
                return .none
            }
            // The redirect was used and the attempt now waits for a code (a new account's verification).
            if case .oneTimeCode = attempt.method { return .none }
            // RFC 9207: checked before the answer is looked at, errors included, so a mixed-up response ends the
            // attempt with nothing sent to any token endpoint.
            if let refusal = Self.issuerRefusal(callback, attempt) { return end(attempt, refusal) }
            if let error = callback.error {
                return end(attempt, .providerAnswered(error, description: callback.errorDescription))
            }
            let grant: Grant
            if let code = callback.code, !code.isEmpty {
                grant = .authorizationCode(code)
            } else if let idToken = callback.idToken, !idToken.isEmpty {
                grant = .idToken(idToken)
            } else if let token = callback.token, !token.isEmpty {
                // Portal routes the token by its marker, as PortalSwift's handleRedirect does: a magic link's
                // redirect says authMethod=EMAIL_MAGIC_LINK, an OAuth one its login_type; without either it is not a
                // sign-in result, and the token stays unspent for the whole redirect.
                if callback.authMethod == "EMAIL_MAGIC_LINK" {
                    grant = .portalMagicLinkToken(token)
                } else if let loginType = callback.loginType, Self.portalLoginTypes.contains(loginType) {
                    grant = .portalToken(token)
                } else {
                    return .reject(Self.unmarkedPortalRedirect)
                }
                taken.exchangedTokenDigest = SHA256.hash(token)
            } else {
                return .reject(.callbackIncomplete)
            }
            state = .awaitingCallback(taken, .verifying)
            return .exchange(attempt.id, grant)
        case .totpRequired(let attempt, _, let progress):
            // The attempt's callback was already used; a replay must not restart the exchange. Portal's redirect
            // has no state: its token says it is the same one, and it answers the same step.
            if Self.sameToken(callback, attempt.exchangedTokenDigest) {
                switch progress {
                case .waiting, .verifying: return .replayStep(attempt.id)
                case .confirming, .persisting, .storageFailed, .cancelling: return .none  // the answer decides
                }
            }
            return callback.state.map { ConstantTime.equals($0, attempt.state) } == true
                ? .none : .reject(.stateMismatch)
        case .idle, .authenticated:
            // Rules 2 and 4: late callbacks of ended attempts are ignored; a completed one reports its result again.
            guard let ended, let outcome = ended.outcome else { return .none }
            if let received = callback.state, ConstantTime.equals(received, ended.state) { return .replay(outcome) }
            return Self.sameToken(callback, ended.tokenDigest) ? .replay(outcome) : .none
        }
    }

    /// The `login_type` values PortalSwift exchanges a token under (its `AuthMethod`'s OAuth cases).
    static let portalLoginTypes: Set<String> = ["GOOGLE", "APPLE"]

    /// A Portal redirect with a token but no sign-in method: refused, its token unspent, the attempt waiting.
    static let unmarkedPortalRedirect = SignInError.authenticationFailed(
        providerError: "the Portal redirect names neither login_type (GOOGLE or APPLE) nor authMethod "
            + "(EMAIL_MAGIC_LINK), without which Portal's SDK exchanges nothing; paste the whole redirect URL")

    /// Whether a redirect without state re-delivers the Portal token whose digest is `digest` (an error redirect
    /// never replays: PortalSwift reads the error first).
    private static func sameToken(_ callback: Callback, _ digest: [UInt8]?) -> Bool {
        guard callback.state == nil, callback.error == nil, let digest, let token = callback.token, !token.isEmpty
        else { return false }
        return ConstantTime.equals(SHA256.hash(token), digest)
    }

    /// Why a redirect cannot be from the issuer the request went to (RFC 9207 2.4): its `iss` is another, or it has
    /// none although the issuer's discovery says it always sends one. Nil when it may be taken.
    static func issuerRefusal(_ callback: Callback, _ attempt: Attempt) -> SignInError? {
        guard let expected = attempt.expectedIssuer else { return nil }
        guard let received = callback.issuer else {
            return attempt.requiresIssuer ? .issuerMismatch(received: nil, expected: expected) : nil
        }
        // Simple string comparison, as RFC 9207 2.4 says: no normalisation of case, slashes or escapes.
        return received == expected ? nil : .issuerMismatch(received: received, expected: expected)
    }

    /// The backend confirmed it sent the one-time code (or resent it).
    public mutating func codeSent(_ id: AttemptID, otpID: String, resendAvailableAt: Date) -> Action {
        guard case .awaitingCallback(var attempt, let progress) = state, attempt.id == id,
            case .oneTimeCode(let contact, let format, _) = attempt.method
        else {
            return .none  // a late answer for an attempt that has ended
        }
        attempt.method = .oneTimeCode(contact: contact, format: format, otpID: otpID)
        attempt.resendAvailableAt = resendAvailableAt
        state = .awaitingCallback(attempt, progress)
        return .none
    }

    /// The user typed a code: a one-time code while awaiting, a TOTP code when it is required.
    public mutating func codeEntered(_ code: String, now: Date) -> Action {
        switch state {
        case .awaitingCallback(let attempt, let progress):
            if now >= attempt.deadline { return end(attempt, .timedOut) }
            guard case .oneTimeCode(_, let format, let otpID) = attempt.method else { return .reject(.invalidCode) }
            guard case .waiting = progress else { return .none }  // a double Enter while verifying
            guard let otpID else { return .reject(.unavailable(reason: "the code has not been sent yet")) }
            guard let normalized = format.validate(code) else { return .reject(.invalidCode) }
            state = .awaitingCallback(attempt, .verifying)
            return .verifyCode(attempt.id, otpID: otpID, code: normalized)
        case .totpRequired(let attempt, let challenge, let progress):
            if now >= attempt.deadline { return end(attempt, .timedOut) }
            guard case .waiting = progress else { return .none }  // a double Enter while verifying
            guard let normalized = OTPCodeFormat.totp.validate(code) else { return .reject(.invalidCode) }
            state = .totpRequired(attempt, challenge, .verifying)
            return .verifyTOTP(attempt.id, userJwt: challenge.userJwt, code: normalized)
        case .idle, .authenticated:
            return .none  // a code typed after the attempt ended
        }
    }

    /// How long after a one-time code goes out another may be asked for: the controller sets each code's
    /// `resendAvailableAt` from it, and before then a resend is refused as `rateLimited`.
    public static let resendCooldown: TimeInterval = 30

    /// The user asked for the one-time code again.
    public mutating func resendRequested(now: Date) -> Action {
        guard case .awaitingCallback(let attempt, .waiting) = state, case .oneTimeCode = attempt.method else {
            return .none  // no code to resend in this state
        }
        if let availableAt = attempt.resendAvailableAt, now < availableAt { return .reject(.rateLimited) }
        return .resendCode(attempt.id)
    }

    /// The backend issued a session (code exchanged, OTP or TOTP verified, device approved).
    public mutating func sessionIssued(_ id: AttemptID, _ issued: IssuedSession) -> Action {
        switch state {
        case .awaitingCallback(let attempt, .verifying) where attempt.id == id,
            .awaitingCallback(let attempt, .waiting) where attempt.id == id && attempt.method == .device:
            if attempt.awaitsIdentityConfirmation {
                state = .awaitingCallback(attempt, .confirming(issued))
                return .confirmIdentity(id, issued)
            }
            state = .awaitingCallback(attempt, .persisting(issued))
            return .persist(id, issued)
        case .totpRequired(let attempt, let challenge, .verifying) where attempt.id == id:
            // Rule 6: only the right TOTP code leads to persisting.
            if attempt.awaitsIdentityConfirmation {
                state = .totpRequired(attempt, challenge, .confirming(issued))
                return .confirmIdentity(id, issued)
            }
            state = .totpRequired(attempt, challenge, .persisting(issued))
            return .persist(id, issued)
        case .awaitingCallback(let attempt, .cancelling) where attempt.id == id,
            .totpRequired(let attempt, _, .cancelling) where attempt.id == id:
            // The user cancelled while this was being issued: it is not stored, and it is revoked.
            _ = end(attempt, .closed)
            return .discard(id, issued, .closed)
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            return .none  // an answer for an attempt that was cancelled or timed out
        }
    }

    /// The exchange proved identity, and the backend wants the contact verified first (a new account): the attempt
    /// now waits for the one-time code it sent. Nothing is persisted until that code is verified.
    public mutating func codeRequired(
        _ id: AttemptID, contact: Contact, format: OTPCodeFormat, otpID: String,
        resendAvailableAt: Date
    ) -> Action {
        if case .awaitingCallback(let attempt, .cancelling) = state, attempt.id == id { return end(attempt, .closed) }
        // Answered by an exchange (verifying) or by a device poll, which runs while the attempt waits.
        guard case .awaitingCallback(var attempt, let progress) = state, attempt.id == id,
            progress == .verifying || (progress == .waiting && attempt.method == .device)
        else {
            return .none  // a late answer for an attempt that has ended
        }
        attempt.method = .oneTimeCode(contact: contact, format: format, otpID: otpID)
        attempt.resendAvailableAt = resendAvailableAt
        state = .awaitingCallback(attempt, .waiting)
        return .none
    }

    /// The backend proved identity but asks for a TOTP code; nothing is persisted (rule 6).
    public mutating func totpChallenged(_ id: AttemptID, _ challenge: TOTPChallenge) -> Action {
        if case .awaitingCallback(let attempt, .cancelling) = state, attempt.id == id { return end(attempt, .closed) }
        guard case .awaitingCallback(let attempt, .verifying) = state, attempt.id == id else {
            return .none  // a late answer for an attempt that has ended
        }
        state = .totpRequired(attempt, challenge, .waiting)
        return .none
    }

    /// The backend refused a typed code (one-time or TOTP), for `reason`. The attempt waits for another.
    public mutating func codeRejected(_ id: AttemptID, _ reason: SignInError = .invalidCode) -> Action {
        switch state {
        case .awaitingCallback(let attempt, .cancelling) where attempt.id == id,
            .totpRequired(let attempt, _, .cancelling) where attempt.id == id:
            return end(attempt, .closed)  // the cancelled request answered: nothing was issued
        case .awaitingCallback(let attempt, .verifying) where attempt.id == id:
            state = .awaitingCallback(attempt, .waiting)
            return .reject(reason)
        case .totpRequired(let attempt, var challenge, .verifying) where attempt.id == id:
            challenge.attemptsLeft -= 1
            if challenge.attemptsLeft <= 0 { return end(attempt, .rateLimited) }
            state = .totpRequired(attempt, challenge, .waiting)
            return .reject(.invalidCode)
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            return .none  // an answer for an attempt that has ended or was not verifying
        }
    }

    /// A request of the attempt failed for good (exchange refused, invalid ID token, network).
    public mutating func requestFailed(_ id: AttemptID, _ error: SignInError) -> Action {
        switch state {
        case .awaitingCallback(let attempt, .cancelling) where attempt.id == id,
            .totpRequired(let attempt, _, .cancelling) where attempt.id == id:
            return end(attempt, .closed)  // the user cancelled first: that is what the attempt ended with
        case .awaitingCallback(_, .persisting), .totpRequired(_, _, .persisting),
            .awaitingCallback(_, .storageFailed), .totpRequired(_, _, .storageFailed),
            .awaitingCallback(_, .confirming), .totpRequired(_, _, .confirming):
            // A late failure (a resend, a poll) cannot undo an issued session: the user's answer, the write, or its
            // retry decides.
            return .none
        case .awaitingCallback(let attempt, _) where attempt.id == id,
            .totpRequired(let attempt, _, _) where attempt.id == id:
            return end(attempt, error)
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            return .none  // a late failure of an attempt that has already ended
        }
    }

    /// The user answered whether to keep the session a redirect without `state` issued (`confirmIdentity`): kept,
    /// it is written; declined, the attempt ends as cancelled, and the session is revoked where the backend can.
    public mutating func identityAnswered(keep: Bool) -> Action {
        switch state {
        case .awaitingCallback(let attempt, .confirming(let issued)):
            guard keep else { return decline(attempt, issued) }
            state = .awaitingCallback(attempt, .persisting(issued))
            return .persist(attempt.id, issued)
        case .totpRequired(let attempt, let challenge, .confirming(let issued)):
            guard keep else { return decline(attempt, issued) }
            state = .totpRequired(attempt, challenge, .persisting(issued))
            return .persist(attempt.id, issued)
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            return .none  // a second answer, or one for an attempt that has ended
        }
    }

    /// The store confirmed the write (rule 5): only now is the attempt signed in.
    public mutating func persisted(_ id: AttemptID, _ record: SessionRecord) -> Action {
        switch state {
        case .awaitingCallback(let attempt, .persisting(let issued)) where attempt.id == id,
            .totpRequired(let attempt, _, .persisting(let issued)) where attempt.id == id:
            let outcome = SignInOutcome(record: record, kind: issued.kind)
            ended = (attempt.state, attempt.exchangedTokenDigest, outcome)
            state = .authenticated(outcome)
            return .report(outcome)
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            return .none  // a confirmation for an attempt that is not persisting
        }
    }

    /// The store refused the write (rule 5): no session is reported; the issued one is held for a retry.
    public mutating func persistFailed(_ id: AttemptID, message: String) -> Action {
        switch state {
        case .awaitingCallback(let attempt, .persisting(let issued)) where attempt.id == id:
            state = .awaitingCallback(attempt, .storageFailed(issued))
            return .reject(.sessionStorageFailure(message: message))
        case .totpRequired(let attempt, let challenge, .persisting(let issued)) where attempt.id == id:
            state = .totpRequired(attempt, challenge, .storageFailed(issued))
            return .reject(.sessionStorageFailure(message: message))
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            return .none  // a failure report for an attempt that is not persisting
        }
    }

    /// The user asked to retry only the store write of a held session.
    public mutating func persistRetryRequested() -> Action {
        switch state {
        case .awaitingCallback(let attempt, .storageFailed(let issued)):
            state = .awaitingCallback(attempt, .persisting(issued))
            return .persist(attempt.id, issued)
        case .totpRequired(let attempt, let challenge, .storageFailed(let issued)):
            state = .totpRequired(attempt, challenge, .persisting(issued))
            return .persist(attempt.id, issued)
        case .idle, .awaitingCallback, .totpRequired, .authenticated:
            return .none  // nothing is held for a retry
        }
    }

    /// Esc in the TUI, Ctrl-C on the command line (rule 2).
    public mutating func cancelRequested() -> Action {
        switch state {
        case .awaitingCallback(let attempt, .verifying):
            // A request is out: let it finish, so whatever it issues can be revoked instead of living on unseen.
            state = .awaitingCallback(attempt, .cancelling)
            return .none
        case .totpRequired(let attempt, let challenge, .verifying):
            state = .totpRequired(attempt, challenge, .cancelling)
            return .none
        case .awaitingCallback(_, .persisting), .totpRequired(_, _, .persisting), .awaitingCallback(_, .cancelling),
            .totpRequired(_, _, .cancelling):
            // The write decides: a stored session is reported as stored, never as cancelled; a failed write can
            // be cancelled then. A second cancel changes nothing.
            return .none
        case .awaitingCallback(let attempt, .storageFailed(let issued)),
            .totpRequired(let attempt, _, .storageFailed(let issued)),
            .awaitingCallback(let attempt, .confirming(let issued)),
            .totpRequired(let attempt, _, .confirming(let issued)):
            return decline(attempt, issued)
        case .awaitingCallback(let attempt, _), .totpRequired(let attempt, _, _):
            return end(attempt, .closed)
        case .idle, .authenticated:
            return .none  // nothing to cancel
        }
    }

    /// A clock tick: attempts past their deadline fail (rule 7).
    public mutating func tick(now: Date) -> Action {
        switch state {
        case .awaitingCallback(let attempt, let progress), .totpRequired(let attempt, _, let progress):
            // A session already issued is not thrown away by the clock: the write decides. A cancelled request is
            // waited for: its answer ends the attempt.
            if case .persisting = progress { return .none }
            if case .cancelling = progress { return .none }
            if case .confirming = progress { return .none }  // the user's answer decides, however late
            guard now >= attempt.deadline else { return .none }
            if case .storageFailed(let issued) = progress {
                _ = end(attempt, .timedOut)
                return .discard(attempt.id, issued, .timedOut)  // held but never stored: take it back
            }
            return end(attempt, .timedOut)
        case .idle, .authenticated:
            return .none
        }
    }

    /// The user left the result screen.
    public mutating func dismissed() -> Action {
        switch state {
        case .authenticated:
            state = .idle(lastError: nil)
            return .none
        case .idle(let error) where error != nil:
            state = .idle(lastError: nil)
            return .none
        case .idle, .awaitingCallback, .totpRequired:
            return .none  // a running attempt is left with cancel, not dismiss
        }
    }

    // MARK: - Helpers

    /// The attempt in flight, if any.
    public var currentAttempt: Attempt? {
        switch state {
        case .awaitingCallback(let attempt, _), .totpRequired(let attempt, _, _): return attempt
        case .idle, .authenticated: return nil
        }
    }

    /// An issued session that is not to be stored: the attempt ends as cancelled and the session is taken back.
    private mutating func decline(_ attempt: Attempt, _ issued: IssuedSession) -> Action {
        _ = end(attempt, .closed)
        return .discard(attempt.id, issued, .closed)
    }

    private mutating func end(_ attempt: Attempt, _ error: SignInError) -> Action {
        ended = (attempt.state, nil, nil)
        state = .idle(lastError: error)
        return .fail(attempt.id, error)
    }
}
