import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import SessionStorage

/// `authdeck aws-credentials --role-arn ARN [KEY] [--duration DUR] [--role-session-name NAME]`: the session's ID
/// token exchanged at AWS STS (`AssumeRoleWithWebIdentity`) for temporary credentials, printed as the AWS CLI's and
/// SDKs' `credential_process` expects. The credentials are cached, sealed in the store, until five minutes before
/// they expire; the ID token is refreshed first, as `token` refreshes, when it has expired.
enum AWSCredentialsCommand {
    /// How long before their expiry cached credentials stop being handed out (the AWS SDKs refresh a
    /// `credential_process` result in its last minutes too).
    static let expiryMargin: TimeInterval = 300

    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let key = try global.session(or: arguments.positionals(atMost: 1).first)
        guard let roleARN = arguments.value("role-arn") else {
            throw .usage("aws-credentials needs --role-arn arn:aws:iam::ACCOUNT:role/NAME")
        }
        guard AWSSTS.isRoleARN(roleARN) else {
            throw .usage(
                "--role-arn '\(TerminalText.sanitized(String(roleARN.prefix(120))))' is not an IAM role ARN "
                    + "(arn:aws:iam::123456789012:role/NAME)")
        }
        var duration: Int?
        if let text = arguments.value("duration") {
            guard let seconds = DurationText.seconds(text), (900...43_200).contains(seconds) else {
                throw .usage("--duration takes 15m to 12h (900 to 43200 seconds), as STS allows")
            }
            duration = seconds
        }
        let sessionName = arguments.value("role-session-name")
        if let sessionName, !AWSSTS.isRoleSessionName(sessionName) {
            throw .usage("--role-session-name takes 2 to 64 of the characters A-Z a-z 0-9 + = , . @ _ -")
        }
        let endpoint = try AWSSTS.endpoint(global)
        let store = try StoreCommands.requireStore(global)
        let session = try StoreCommands.attempt { () throws(StoreError) in try store.session(key) }
        let record = session.record
        let request = AWSSTS.Request(
            roleARN: roleARN, sessionName: sessionName ?? AWSSTS.defaultSessionName(record.key),
            durationSeconds: duration, endpoint: endpoint)
        let cacheName = request.cacheName(session: record.key, issuer: record.issuer, subject: record.subject)
        let now = Date()
        if let cached = try StoreCommands.attempt({ () throws(StoreError) in
            try store.cachedCredentials(name: cacheName, validUntil: now.addingTimeInterval(expiryMargin))
        }) {
            global.out(String(decoding: cached, as: UTF8.self))
            return .done
        }
        let idToken = try currentIDToken(session, store: store, global)
        let credentials = try AWSSTS.assumeRole(
            request, idToken: idToken, key: record.key, transport: CurlTransport(trust: global.trust))
        let document = credentials.processJSON
        // A cache that cannot be written costs the next call a round trip; the credentials are still good.
        if credentials.expiration.timeIntervalSince(now) > expiryMargin {
            do throws(StoreError) {
                try store.storeCachedCredentials(
                    Array(document.utf8), name: cacheName, expiresAt: credentials.expiration)
            } catch {
                if !global.quiet { global.err("authdeck: the credentials were not cached: \(error)\n") }
            }
        }
        global.out(document)
        return .done
    }

    /// The session's ID token, refreshed first when it has expired (or expires within a minute) and the session
    /// can refresh; else one line saying to sign in again.
    static func currentIDToken(_ session: Session, store: SessionStore, _ global: GlobalOptions)
        throws(CommandFailure) -> String
    {
        let key = session.record.key
        guard let idToken = session.secrets.idToken else {
            throw CommandFailure(.failed, "session '\(key)' has no ID token for AWS STS (sign in with OpenID Connect)")
        }
        let soon = Date().addingTimeInterval(60)
        guard let expiry = expiryDate(of: idToken), expiry <= soon else { return idToken }
        guard session.record.refreshable && session.secrets.endpoints != nil else {
            throw CommandFailure(
                .failed,
                "the ID token of '\(key)' \(expiry <= Date() ? "expired" : "expires") at "
                    + "\(SessionJSON.iso8601(expiry)) and the session cannot be refreshed; sign in again "
                    + "(authdeck login --session-key \(key) …)")
        }
        let refreshed = try SessionCommands.refresh(
            key, store: store,
            refresher: SessionRefresher(
                transport: CurlTransport(trust: global.trust), currentProvider: CurrentEndpoints.lookup(global)))
        // A provider whose ID tokens live under a minute still gives one that STS takes now.
        guard let fresh = refreshed.secrets.idToken, let newExpiry = expiryDate(of: fresh), newExpiry > Date() else {
            throw CommandFailure(
                .failed,
                "the ID token of '\(key)' expired and the provider's refresh gave no new one; sign in again")
        }
        return fresh
    }

    /// The `exp` claim of a JWT, unverified (the token is the provider's, checked by STS); nil when it has none.
    static func expiryDate(of token: String) -> Date? {
        guard let parts = try? JWS.decodeUnverified(token),
            case .object(let claims)? = try? JSONValue.parse(parts.payload),
            case .number(let seconds)? = claims["exp"]
        else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
