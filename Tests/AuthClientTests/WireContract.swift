import AuthClient
import AuthCore
import AuthCrypto
import Foundation

/// One imitated API's contract (Tests/Fixtures/contracts/*.json, written from the public sources each names) and
/// the checker that holds requests and answers to it. The schema language is a small subset of JSON Schema:
/// `type` (object, array, string, integer, boolean), `properties`, `required`, `additionalProperties` (absent:
/// no other member is allowed), `items`, `enum`, `format: int64` (a decimal string), `$ref` into `definitions`,
/// and authdeck's `x-json` (a string holding JSON text), `x-jwt` (a JWT's claims) and `x-data` (the `data` of an
/// envelope). `x-added` (a non-empty string saying where it comes from) marks what a file adds beyond its sources;
/// it is enforced like the rest, and a file with any other `x-` keyword is refused, so a misspelt marker cannot
/// pass. A contract with `refusals` (Portal's) is read by status, a body checked only where its SDK parses one
/// (`parsed`); otherwise every refusal has the `error` shape. The checker was written from that description, not from the code it checks.
struct WireContract: Sendable {
    let name: String
    /// Where a route's path starts inside a URL path (`/v1/`, `/api/v3/auth/`).
    let routePrefix: String
    private let document: JSONValue
    private let extensions: Set<String>

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/contracts")

    static func load(_ file: String, routePrefix: String, extensions: Set<String> = []) -> WireContract {
        let url = folder.appendingPathComponent(file)
        guard let data = FileManager.default.contents(atPath: url.path),
            let document = try? JSONValue.parse(Array(data))
        else {
            fatalError("cannot read the contract \(url.path)")
        }
        if let problem = unknownKeyword(in: document, at: file) { fatalError(problem) }
        return WireContract(
            name: document["api"]?.string ?? file, routePrefix: routePrefix, document: document,
            extensions: extensions)
    }

    /// The `x-` keywords of the schema language: those of `schemaKeywords`, so the two checks cannot disagree.
    static let keywords = schemaKeywords.filter { $0.hasPrefix("x-") }

    /// The first `x-` keyword the schema language does not have, or an `x-added` without its reason. Under
    /// `properties` and `headers` the keys are names, not keywords.
    static func unknownKeyword(in value: JSONValue, at path: String, namesHere: Bool = false) -> String? {
        switch value {
        case .object(let members):
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                if !namesHere, key.hasPrefix("x-"), !keywords.contains(key) {
                    return "\(path): unknown keyword \(key)"
                }
                if !namesHere, key == "x-added", member.string?.isEmpty != false {
                    return "\(path): x-added without a reason"
                }
                let names = !namesHere && (key == "properties" || key == "headers")
                if let problem = unknownKeyword(in: member, at: path + "." + key, namesHere: names) { return problem }
            }
        case .array(let items):
            for item in items { if let problem = unknownKeyword(in: item, at: path) { return problem } }
        default: break
        }
        return nil
    }

    static func turnkey(totpExtension: Bool = false) -> WireContract {
        load("turnkey-auth-proxy.json", routePrefix: "/v1/", extensions: totpExtension ? ["turnkey-totp"] : [])
    }

    static let portal = load("portal-client-auth.json", routePrefix: "/api/v3/auth/")

    /// A contract from its text, for tests of the checker itself.
    static func parse(_ text: String, routePrefix: String) throws -> WireContract {
        let document = try JSONValue.parse(Array(text.utf8))
        return WireContract(name: "test", routePrefix: routePrefix, document: document, extensions: [])
    }

    /// The route a URL path belongs to (`/v1/otp_init`), nil when the path is not this API's.
    func route(ofPath path: String) -> String? {
        guard let range = path.range(of: routePrefix) else { return nil }
        return String(path[range.lowerBound...])
    }

    /// Every route the contract (and its turned-on extensions) lists.
    var routes: [String: JSONValue] {
        var all: [String: JSONValue] = [:]
        if case .object(let members)? = document["routes"] { all = members }
        for name in extensions {
            if case .object(let extra)? = document["extensions"]?[name]?["routes"] {
                all.merge(extra) { first, _ in first }
            }
        }
        return all
    }

    // MARK: - Checks

    /// What is wrong with a request: unknown route, method, missing headers, body or query members.
    func check(request: OutgoingRequest) -> [String] {
        let components = URLComponents(string: request.url)
        guard let path = components?.path, let route = route(ofPath: path) else { return [] }
        guard let spec = routes[route] else { return ["\(name): \(route) is not in the contract"] }
        var problems: [String] = []
        if let method = spec["method"]?.string, method != request.method {
            problems.append("\(name) \(route): sent \(request.method), the contract says \(method)")
        }
        if case .object(let headers)? = document["headers"] {
            for (header, _) in headers
            where !request.headers.contains(where: {
                $0.0.caseInsensitiveCompare(header) == .orderedSame && !$0.1.isEmpty
            }) {
                problems.append("\(name) \(route): no \(header) header")
            }
        }
        if spec["bearer"] != nil,
            !request.headers.contains(where: {
                $0.0.lowercased() == "authorization" && $0.1.hasPrefix("Bearer ")
            })
        {
            problems.append("\(name) \(route): no bearer")
        }
        if let schema = spec["query"] {
            var query: [String: JSONValue] = [:]
            for item in components?.queryItems ?? [] { query[item.name] = .string(item.value ?? "") }
            problems += validate(.object(query), schema, at: "\(route)?")
        } else if let items = components?.queryItems, !items.isEmpty {
            problems.append("\(name) \(route): a query the contract does not have")
        }
        if let schema = spec["request"] {
            guard let body = try? JSONValue.parse(request.body) else {
                return problems + ["\(name) \(route): the request body is not JSON"]
            }
            problems += validate(body, schema, at: route + " request")
        } else if !request.body.isEmpty {
            problems.append("\(name) \(route): a body the contract does not have")
        }
        return problems.map { "request \($0)" }
    }

    /// What is wrong with an answer: a success against the route's response, a refusal against the error shape.
    func check(response: IncomingResponse, to request: OutgoingRequest) -> [String] {
        guard let path = URLComponents(string: request.url)?.path, let route = route(ofPath: path),
            let spec = routes[route]
        else { return [] }
        if !(200..<300).contains(response.status), let refusals = document["refusals"] {
            return check(refusal: response, route: route, refusals)
        }
        guard let body = try? JSONValue.parse(response.body) else {
            return ["answer \(name) \(route): HTTP \(response.status) without a JSON body"]
        }
        if !(200..<300).contains(response.status) {
            return validate(body, document["error"] ?? .null, at: "\(route) error").map { "answer \($0)" }
        }
        guard var schema = spec["response"] else { return [] }
        schema = widened(schema, route: route)
        return validate(body, schema, at: route + " answer").map { "answer \($0)" }
    }

    /// A refusal read by its status: the SDK reads no body but where `parsed` names a shape for the route.
    private func check(refusal response: IncomingResponse, route: String, _ refusals: JSONValue) -> [String] {
        let rule = refusals[String(response.status)] ?? refusals["other"] ?? .null
        guard let schema = rule["parsed"]?[route] else { return [] }
        guard let body = try? JSONValue.parse(response.body) else {
            return ["answer \(name) \(route): HTTP \(response.status) without the JSON body the SDK parses"]
        }
        return validate(body, schema, at: "\(route) refusal").map { "answer \($0)" }
    }

    /// The schema keywords the checker knows; a schema (an object with `type` or `$ref`) using another is refused.
    static let schemaKeywords: Set<String> = [
        "type", "properties", "required", "additionalProperties", "items", "enum", "format", "$ref", "x-json",
        "x-jwt", "x-data", "x-added",
    ]

    /// What in the contract file the checker cannot read: keywords a schema uses that it does not know.
    func unreadable() -> [String] {
        func walk(_ value: JSONValue, _ path: String) -> [String] {
            switch value {
            case .object(let members):
                var problems: [String] = []
                // A `properties` object names members (one may be called `type`); any other with `type` or `$ref`
                // is a schema.
                if !path.hasSuffix(".properties"), members["type"] != nil || members["$ref"] != nil {
                    for key in members.keys.sorted() where !Self.schemaKeywords.contains(key) {
                        problems.append("\(path): \(key) is not a keyword the checker knows")
                    }
                }
                for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                    problems += walk(member, path + "." + key)
                }
                return problems
            case .array(let items):
                return items.enumerated().flatMap { walk($0.element, "\(path)[\($0.offset)]") }
            default:
                return []
            }
        }
        return walk(document, name)
    }

    /// A redirect's query parameters against the contract's `redirect` shape (Portal's).
    func check(redirectQuery: [String: String]) -> [String] {
        guard let schema = document["redirect"] else { return [] }
        return validate(.object(redirectQuery.mapValues { .string($0) }), schema, at: "redirect")
    }

    /// A response schema with the turned-on extensions' members (and their relaxed requirements) merged in.
    private func widened(_ schema: JSONValue, route: String) -> JSONValue {
        var resolved = self.resolved(schema)
        for name in extensions {
            guard let ext = document["extensions"]?[name] else { continue }
            if case .object(let extra)? = ext["responseMembers"]?[route],
                case .object(var object) = resolved, case .object(var properties)? = object["properties"]
            {
                properties.merge(extra) { first, _ in first }
                object["properties"] = .object(properties)
                resolved = .object(object)
            }
            if case .array(let relaxed)? = ext["optionalInResponse"]?[route], case .object(var object) = resolved,
                case .array(let required)? = object["required"]
            {
                object["required"] = .array(required.filter { !relaxed.contains($0) })
                resolved = .object(object)
            }
        }
        return resolved
    }

    /// The refusal shape every route shares.
    var errorSchema: JSONValue { document["error"] ?? .null }

    /// `schema` with its `$ref` followed (members next to it kept).
    func resolved(_ schema: JSONValue) -> JSONValue {
        guard let reference = schema["$ref"]?.string else { return schema }
        guard let target = document["definitions"]?[reference] else { return .null }
        var merged = resolved(target)
        // Members next to `$ref` (x-data) still apply.
        if case .object(let extra) = schema, case .object(var object) = merged {
            for (key, value) in extra where key != "$ref" { object[key] = value }
            merged = .object(object)
        }
        return merged
    }

    func validate(_ value: JSONValue, _ schema: JSONValue, at path: String) -> [String] {
        if schema["$ref"] != nil {
            let target = resolved(schema)
            if target == .null { return ["\(path): the contract has no definition \(schema["$ref"]?.string ?? "")"] }
            return validate(value, target, at: path)
        }
        var problems: [String] = []
        switch schema["type"]?.string {
        case "object"?:
            guard case .object(let members) = value else { return ["\(path): expected an object"] }
            let properties: [String: JSONValue]
            if case .object(let declared)? = schema["properties"] { properties = declared } else { properties = [:] }
            if case .array(let required)? = schema["required"] {
                for name in required.compactMap(\.string) where members[name] == nil || members[name] == .null {
                    problems.append("\(path): missing required member \(name)")
                }
            }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if let memberSchema = properties[name] {
                    if member != .null { problems += validate(member, memberSchema, at: "\(path).\(name)") }
                } else if let extra = schema["additionalProperties"] {
                    problems += validate(member, extra, at: "\(path).\(name)")
                } else {
                    problems.append("\(path): member \(name) is not in the contract")
                }
            }
        case "array"?:
            guard case .array(let items) = value else { return ["\(path): expected an array"] }
            if let itemSchema = schema["items"] {
                for (index, item) in items.enumerated() {
                    problems += validate(item, itemSchema, at: "\(path)[\(index)]")
                }
            }
        case "string"?:
            guard case .string(let text) = value else { return ["\(path): expected a string"] }
            if case .array(let allowed)? = schema["enum"], !allowed.contains(.string(text)) {
                problems.append("\(path): \(text.prefix(40)) is not one of the contract's values")
            }
            if schema["format"]?.string == "int64", Int64(text) == nil {
                problems.append("\(path): expected an int64 as a decimal string")
            }
            if let inner = schema["x-json"] {
                guard let parsed = try? JSONValue.parse(text) else { return problems + ["\(path): not JSON text"] }
                problems += validate(parsed, inner, at: "\(path)<json>")
            }
            if let claims = schema["x-jwt"] {
                guard let parts = try? JWS.decodeUnverified(text), let parsed = try? JSONValue.parse(parts.payload)
                else { return problems + ["\(path): not a JWT"] }
                problems += validate(parsed, claims, at: "\(path)<claims>")
            }
        case "integer"?:
            guard case .number(let number) = value, number.rounded() == number else {
                return ["\(path): expected an integer"]
            }
        case "boolean"?:
            guard case .bool = value else { return ["\(path): expected a boolean"] }
        default:
            break  // `{}`: anything
        }
        if let data = schema["x-data"] {
            problems += validate(value["data"] ?? .null, data, at: "\(path).data")
        }
        return problems
    }
}
