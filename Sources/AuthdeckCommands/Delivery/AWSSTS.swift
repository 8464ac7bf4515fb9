import AuthClient
import AuthCore
import AuthCrypto
import Foundation
import SessionStorage

/// AWS STS's `AssumeRoleWithWebIdentity` (an unsigned Query API call: the ID token is the credential), its endpoint
/// as the AWS SDKs choose it, and the answer as `credential_process` prints it.
enum AWSSTS {
    /// What is asked of STS; also what cached credentials are kept under.
    struct Request: Equatable {
        var roleARN: String
        var sessionName: String
        var durationSeconds: Int?
        var endpoint: String

        /// The meta-row name of these credentials: a digest of the session's identity and everything asked, so a
        /// session signed in again as someone else, another role or another endpoint never reuses them.
        func cacheName(session: String, issuer: String, subject: String) -> String {
            let parts = [
                "aws-sts", session, issuer, subject, roleARN, sessionName, durationSeconds.map(String.init) ?? "",
                endpoint,
            ]
            return SHA256.hash(Array(parts.joined(separator: "\u{0}").utf8)).map { String(format: "%02x", $0) }
                .joined()
        }
    }

    struct Credentials {
        var accessKeyID: String
        var secretAccessKey: String
        var sessionToken: String
        var expiration: Date

        /// The `credential_process` document (Version 1), one line.
        var processJSON: String {
            "{\"Version\":1,\"AccessKeyId\":\(SessionJSON.quoted(accessKeyID)),"
                + "\"SecretAccessKey\":\(SessionJSON.quoted(secretAccessKey)),"
                + "\"SessionToken\":\(SessionJSON.quoted(sessionToken)),"
                + "\"Expiration\":\(SessionJSON.quoted(SessionJSON.iso8601(expiration)))}\n"
        }
    }

    /// `arn:PARTITION:iam::ACCOUNT:role/[PATH/]NAME`, as IAM names roles.
    static func isRoleARN(_ text: String) -> Bool {
        let parts = text.split(separator: ":", maxSplits: 5, omittingEmptySubsequences: false)
        guard text.utf8.count >= 20, text.utf8.count <= 2048, parts.count == 6, parts[0] == "arn",
            parts[1] == "aws" || parts[1].hasPrefix("aws-"), parts[2] == "iam", parts[3].isEmpty,
            parts[4].count == 12, parts[4].allSatisfy({ $0.isASCII && $0.isNumber }), parts[5].hasPrefix("role/")
        else { return false }
        let path = parts[5].dropFirst("role/".count)
        guard let name = path.split(separator: "/", omittingEmptySubsequences: false).last, !name.isEmpty,
            name.count <= 64
        else { return false }
        return path.unicodeScalars.allSatisfy { allowedNameCharacter($0) || $0 == "/" }
    }

    /// `RoleSessionName`: 2 to 64 of `[\w+=,.@-]`.
    static func isRoleSessionName(_ text: String) -> Bool {
        (2...64).contains(text.unicodeScalars.count) && text.unicodeScalars.allSatisfy(allowedNameCharacter)
    }

    private static func allowedNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "+=,.@_-".unicodeScalars.contains(scalar))
    }

    /// `authdeck-KEY`, with what a role session name cannot hold replaced by `-`, at most 64 characters.
    static func defaultSessionName(_ key: String) -> String {
        let cleaned = String(
            String.UnicodeScalarView(
                ("authdeck-" + key).unicodeScalars.map { allowedNameCharacter($0) ? $0 : "-" }))
        return String(cleaned.prefix(64))
    }

    /// The STS endpoint, as the AWS SDKs pick it: `AWS_ENDPOINT_URL_STS`, else `AWS_ENDPOINT_URL` (both unless
    /// `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is true), else config.json's `aws.stsEndpoint`, else the regional
    /// endpoint of `AWS_REGION` / `AWS_DEFAULT_REGION`, else the global `https://sts.amazonaws.com`. https only
    /// (http to loopback, for a local STS).
    static func endpoint(_ global: GlobalOptions) throws(CommandFailure) -> String {
        let variables = global.environment.variables
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        var chosen: (url: String, from: String)?
        if value("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")?.lowercased() != "true" {
            if let url = value("AWS_ENDPOINT_URL_STS") {
                chosen = (url, "AWS_ENDPOINT_URL_STS")
            } else if let url = value("AWS_ENDPOINT_URL") {
                chosen = (url, "AWS_ENDPOINT_URL")
            }
        }
        if chosen == nil, let url = try configuredEndpoint(global) { chosen = (url, "config.json's aws.stsEndpoint") }
        guard let chosen else {
            guard let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") else {
                return "https://sts.amazonaws.com/"
            }
            guard region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw CommandFailure(.failed, "AWS_REGION is not a region name such as eu-west-1")
            }
            return "https://sts.\(region).amazonaws.com\(region.hasPrefix("cn-") ? ".cn" : "")/"
        }
        guard let url = URL(string: chosen.url), let scheme = url.scheme?.lowercased(), let host = url.host,
            scheme == "https" || (scheme == "http" && GitCredentialCommand.isLoopback(host))
        else {
            throw CommandFailure(
                .failed, "\(chosen.from) must be an https URL (http only to 127.0.0.1, ::1 or localhost)")
        }
        return chosen.url
    }

    /// config.json's `{"aws": {"stsEndpoint": URL}}`, when present.
    private static func configuredEndpoint(_ global: GlobalOptions) throws(CommandFailure) -> String? {
        let path = ConfigurationFile.path(explicit: global.config, environment: global.environment.variables)
        guard let data = FileManager.default.contents(atPath: path),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let section = object["aws"]
        else { return nil }
        guard let aws = section as? [String: Any], aws["stsEndpoint"] == nil || aws["stsEndpoint"] is String else {
            throw CommandFailure(.failed, "\(path): aws must be {\"stsEndpoint\": URL}")
        }
        return aws["stsEndpoint"] as? String
    }

    /// Asks STS for the role's credentials with `idToken`. A refusal by STS (a token it does not accept, a role it
    /// may not assume) is exit 4 with STS's code and message; nothing of the token or the credentials is shown.
    static func assumeRole(_ request: Request, idToken: String, key: String, transport: HTTPTransport)
        throws(CommandFailure) -> Credentials
    {
        var form = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", request.roleARN),
            ("RoleSessionName", request.sessionName), ("WebIdentityToken", idToken),
        ]
        if let seconds = request.durationSeconds { form.append(("DurationSeconds", String(seconds))) }
        let outgoing = OutgoingRequest(
            method: "POST", url: request.endpoint,
            headers: [("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"), ("Accept", "text/xml")],
            body: Array(FormEncoding.encode(form).utf8))
        let response: IncomingResponse
        do throws(SignInError) {
            response = try transport.send(outgoing)
        } catch {
            throw error.commandFailure
        }
        let body = String(decoding: response.body, as: UTF8.self)
        guard response.status == 200 else {
            let code = XMLText.first("Code", in: body).map(TerminalText.sanitized) ?? "HTTP \(response.status)"
            let message = XMLText.first("Message", in: body).map { TerminalText.sanitized(String($0.prefix(300))) }
            let why = message.map { "\(code): \($0)" } ?? code
            let refused = response.status == 400 || response.status == 403
            throw CommandFailure(
                refused ? .authenticationFailed : .failed, "AWS STS refused the ID token of '\(key)' (\(why))")
        }
        guard let accessKeyID = XMLText.first("AccessKeyId", in: body),
            let secretAccessKey = XMLText.first("SecretAccessKey", in: body),
            let sessionToken = XMLText.first("SessionToken", in: body),
            let expirationText = XMLText.first("Expiration", in: body),
            let expiration = parseDate(expirationText)
        else {
            throw CommandFailure(.failed, "AWS STS answered without credentials (AccessKeyId, Expiration…)")
        }
        return Credentials(
            accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, sessionToken: sessionToken,
            expiration: expiration)
    }

    /// An ISO 8601 UTC time as STS writes it, with or without fractional seconds.
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

/// The text of simple XML elements (STS's answers hold no attributes, CDATA or nesting in the values read here).
enum XMLText {
    /// The text of the first `<name>…</name>` in `document`, its entities decoded; nil when there is none.
    static func first(_ name: String, in document: String) -> String? {
        guard let open = document.range(of: "<\(name)>"),
            let close = document.range(of: "</\(name)>", range: open.upperBound..<document.endIndex)
        else { return nil }
        return decode(String(document[open.upperBound..<close.lowerBound]))
    }

    static func decode(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var output = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            output += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": output += "&"
            case "lt": output += "<"
            case "gt": output += ">"
            case "quot": output += "\""
            case "apos": output += "'"
            default:
                let number =
                    entity.hasPrefix("#x")
                    ? UInt32(entity.dropFirst(2), radix: 16) : entity.hasPrefix("#") ? UInt32(entity.dropFirst()) : nil
                if let number, let scalar = Unicode.Scalar(number) {
                    output.unicodeScalars.append(scalar)
                } else {
                    output += rest[amp...semicolon]
                }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return output + rest
    }
}
