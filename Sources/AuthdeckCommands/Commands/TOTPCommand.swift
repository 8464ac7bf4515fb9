import AuthCore
import AuthCrypto
import Foundation
import SessionStorage

/// `authdeck totp add|list|rm|code`: TOTP seeds of test accounts, sealed in the store like session secrets. Seeds
/// are keys: `--secret -` and `--uri -` read them from standard input so they stay out of process arguments.
enum TOTPCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let words = try arguments.positionals(atMost: 2)
        switch words.first {
        case "add": return try add(user: words.count > 1 ? words[1] : nil, arguments, global)
        case "list": return try list(arguments, global)
        case "rm": return try remove(user: words.count > 1 ? words[1] : nil, global)
        case "code": return try code(user: words.count > 1 ? words[1] : nil, global)
        case let other?: throw .usage("unknown totp action '\(other)' (add, list, rm, code)")
        case nil: throw .usage("totp needs an action: add, list, rm or code")
        }
    }

    static func add(user: String?, _ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let secretArgument = arguments.value("secret")
        let uriArgument = arguments.value("uri")
        guard (secretArgument == nil) != (uriArgument == nil) else {
            throw .usage("give exactly one of --secret BASE32 or --uri otpauth://… (use - to read it from stdin)")
        }
        if (secretArgument ?? uriArgument) != "-", !global.quiet {
            global.err(
                "authdeck: the seed was given on the command line, where other processes can see it; "
                    + "use --secret - or --uri - to read it from standard input\n")
        }
        var seed: TestAccountSeed
        if let value = try secretArgument.map({ argument throws(CommandFailure) in try readValue(argument, global) }) {
            guard let secret = Base32.decode(value), !secret.isEmpty else {
                throw .usage("--secret is not base32 (A–Z and 2–7)")
            }
            guard let user, !user.isEmpty else { throw .usage("totp add needs a USER") }
            seed = TestAccountSeed(user: user, secret: secret)
        } else {
            let text = try readValue(uriArgument ?? "", global)
            let uri: OTPAuthURI
            do throws(OTPAuthURI.Failure) {
                uri = try OTPAuthURI(text)
            } catch {
                throw .usage(error.description)
            }
            guard let secret = Base32.decode(uri.secretBase32), !secret.isEmpty else {
                throw .usage("the otpauth link's secret is not base32")
            }
            seed = TestAccountSeed(
                user: user ?? uri.account, secret: secret,
                algorithm: TOTP.Algorithm(rawValue: uri.algorithm) ?? .sha1, digits: uri.digits,
                period: uri.period)
        }
        seed.createdAt = global.environment.now()
        let store = try StoreCommands.attempt { () throws(StoreError) in
            try SessionStore.open(
                StoreCommands.location(global), options: StoreCommands.storeOptions(global), create: true)
        }
        guard let store else { throw CommandFailure(.store, "the session store cannot be opened") }
        try StoreCommands.attempt { () throws(StoreError) in
            try store.storeTOTPSeed(seed, replace: arguments.has("replace"))
        }
        if !global.quiet { global.err("stored the TOTP seed of test account '\(seed.user)'\n") }
        return .done
    }

    static func list(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        let seeds =
            try StoreCommands.openStore(global, create: false).map { store throws(CommandFailure) in
                try StoreCommands.attempt { () throws(StoreError) in try store.totpSeedList() }
            } ?? []
        if arguments.has("json") {
            let objects = seeds.map { seed in
                "{\"user\":\(SessionJSON.quoted(seed.user)),\"algorithm\":\(SessionJSON.quoted(seed.algorithm.rawValue)),"
                    + "\"digits\":\(seed.digits),\"period\":\(seed.period),"
                    + "\"createdAt\":\(SessionJSON.quoted(SessionJSON.iso8601(seed.createdAt)))}"
            }
            global.out("[" + objects.joined(separator: ",") + "]\n")
        } else if seeds.isEmpty {
            if !global.quiet { global.err("no TOTP seeds (add one with authdeck totp add USER --secret -)\n") }
        } else {
            for seed in seeds {
                global.out(
                    "\(seed.user.padded(to: 24)) \(seed.algorithm.rawValue) \(seed.digits) digits / \(seed.period) s\n")
            }
        }
        return .done
    }

    static func remove(user: String?, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let user else { throw .usage("totp rm needs a USER") }
        let store = try StoreCommands.requireStore(global)
        let removed = try StoreCommands.attempt { () throws(StoreError) in try store.removeTOTPSeed(user: user) }
        guard removed else {
            throw CommandFailure(.noSuchSession, "no TOTP seed for '\(user)' (see authdeck totp list)")
        }
        if !global.quiet { global.err("removed the TOTP seed of '\(user)'\n") }
        return .done
    }

    /// Prints the current code: asking for it is the point of a test account.
    static func code(user: String?, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        guard let user else { throw .usage("totp code needs a USER") }
        let store = try StoreCommands.requireStore(global)
        guard let seed = try StoreCommands.attempt({ () throws(StoreError) in try store.totpSeed(user: user) }) else {
            throw CommandFailure(.noSuchSession, "no TOTP seed for '\(user)' (see authdeck totp list)")
        }
        global.out(seed.code(at: global.environment.now()) + "\n")
        return .done
    }

    /// The stored seed for a user a backend named: the exact name, else its part before `@`.
    static func seed(for user: String?, in store: SessionStore) -> TestAccountSeed? {
        guard let user else { return nil }
        if let seed = try? store.totpSeed(user: user) { return seed }
        if let local = user.split(separator: "@").first, String(local) != user {
            return try? store.totpSeed(user: String(local))
        }
        return nil
    }

    private static func readValue(_ value: String, _ global: GlobalOptions) throws(CommandFailure) -> String {
        guard value == "-" else { return value }
        guard let line = global.environment.input.readLine(), !line.isEmpty else {
            throw .usage("nothing on standard input")
        }
        return line.trimmingCharacters(in: .whitespaces)
    }
}
