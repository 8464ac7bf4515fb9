import Foundation

extension TokenInspection {
    /// One line of an inspection as both front ends show it: `inspect`'s text and the TUI's inspector draw these
    /// rows, each in its own way.
    public struct Row: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            /// The session, or a token and its format.
            case heading
            /// A header or a claim.
            case claim
            case passed
            case failed
            /// What a session without JWTs holds.
            case holds
        }

        public var kind: Kind
        public var label: String
        public var value: String

        public init(_ kind: Kind, _ label: String, _ value: String) {
            self.kind = kind
            self.label = label
            self.value = value
        }
    }

    /// The claims shown first, in this order; the rest follow sorted by name.
    public static let leadingClaims = [
        "iss", "sub", "aud", "azp", "client_id", "scope", "exp", "nbf", "iat", "auth_time", "acr", "amr", "cnf",
    ]

    /// The inspection as rows: the session, then each token's format, header, claims and checks.
    public var rows: [Row] {
        var rows = [Row(.heading, "session", sessionLine)]
        rows += holds.map { Row(.holds, "holds", $0) }
        for token in tokens {
            switch token.content {
            case .opaque:
                rows.append(
                    Row(.heading, token.title, "opaque: only its issuer can read it (authdeck introspect asks)"))
            case .damaged(let reason):
                rows.append(Row(.heading, token.title, "damaged"))
                rows.append(Row(.failed, "check decode", reason))
            case .jwt(let header, let claims):
                let signer = [header["alg"]?.string, header["kid"]?.string.map { "key " + $0 }].compactMap { $0 }
                rows.append(Row(.heading, token.title, (["JWT"] + signer).joined(separator: ", ")))
                rows.append(Row(.claim, "header", JSONValue.object(header).jsonText))
                rows += claimRows(claims)
                rows += token.checks.map { Row($0.ok ? .passed : .failed, "check " + $0.name, $0.detail) }
            }
        }
        return rows
    }

    /// The heading: the key, the issuer, and the client the ID token's audience is checked against.
    private var sessionLine: String {
        ([key, "issuer " + issuer] + (clientID.map { ["client " + $0] } ?? [])).joined(separator: " · ")
    }

    private func claimRows(_ claims: [String: JSONValue]) -> [Row] {
        let names =
            Self.leadingClaims.filter { claims[$0] != nil }
            + claims.keys.filter { !Self.leadingClaims.contains($0) }.sorted()
        var rows: [Row] = []
        for name in names {
            guard let value = claims[name] else { continue }
            if name == "cnf", case .object(let members) = value {
                // The key the token is bound to: DPoP's `jkt` (RFC 9449 6.1), a certificate's `x5t#S256` (RFC 8705 3.1).
                rows += members.keys.sorted().map { member in
                    Row(.claim, "cnf " + member, members[member]?.string ?? members[member]?.jsonText ?? "")
                }
            } else if Self.timeClaims.contains(name) {
                rows.append(Row(.claim, name, Self.time(value, now: checkedAt)))
            } else {
                rows.append(Row(.claim, name, value.string ?? value.jsonText))
            }
        }
        return rows
    }

    /// The rows as `inspect` prints them: labels in a column, failed checks marked FAILED.
    public var text: String {
        let rows = self.rows
        let width = rows.filter { $0.kind != .heading }.map(\.label.count).max() ?? 0
        var text = ""
        for row in rows {
            switch row.kind {
            case .heading:
                text +=
                    (text.isEmpty ? "" : "\n") + row.label.prefix(1).uppercased() + row.label.dropFirst() + ": "
                    + row.value + "\n"
            case .claim, .holds:
                text += "  " + row.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + row.value + "\n"
            case .passed, .failed:
                let mark = row.kind == .passed ? "ok     " : "FAILED "
                text +=
                    "  " + row.label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + mark + row.value
                    + "\n"
            }
        }
        return text
    }

    /// The inspection as one JSON document: each token's header and claims as they are, its checks as
    /// name/ok/detail, and `ok` for the whole.
    public var json: String {
        var tokenValues: [JSONValue] = []
        for token in tokens {
            var object: [String: JSONValue] = ["name": .string(token.name)]
            switch token.content {
            case .opaque: object["format"] = .string("opaque")
            case .damaged(let reason):
                object["format"] = .string("damaged")
                object["detail"] = .string(reason)
            case .jwt(let header, let claims):
                object["format"] = .string("jwt")
                object["header"] = .object(header)
                object["claims"] = .object(claims)
                object["checks"] = .array(
                    token.checks.map {
                        .object(["name": .string($0.name), "ok": .bool($0.ok), "detail": .string($0.detail)])
                    }
                )
            }
            tokenValues.append(.object(object))
        }
        var document: [String: JSONValue] = [
            "key": .string(key), "issuer": .string(issuer), "ok": .bool(passed), "tokens": .array(tokenValues),
            "checkedAt": .number(checkedAt.timeIntervalSince1970.rounded(.down)),
        ]
        if let clientID { document["clientID"] = .string(clientID) }
        if !holds.isEmpty { document["holds"] = .array(holds.map(JSONValue.string)) }
        return JSONValue.object(document).jsonText + "\n"
    }
}
