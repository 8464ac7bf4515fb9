import AuthCore
import SessionStorage

#if canImport(Glibc)
    import Glibc
#endif

/// `authdeck exec [--session KEY] [--env NAME] [--min-valid DUR] -- COMMAND ARGS…`: runs a command with the token in
/// its environment (never its arguments, which every user of the machine can read in /proc), passes its exit
/// status through and forwards signals to it. With `--env-file` the variables are the file's (`EnvFile`), its
/// references resolved before the command starts, and `--mask` hides those tokens in its output (`OutputMask`).
enum ExecCommand {
    static func run(_ arguments: Arguments, _ global: GlobalOptions) throws(CommandFailure) -> ExitCode {
        global.environment.requireProcess("exec")
        let command = arguments.positionals
        guard !command.isEmpty, !command[0].isEmpty else { throw .usage("exec needs a command after --") }
        var environment = global.environment.variables
        // The session a step-up challenge is about: the token's, or the env file's first reference.
        var key: String?
        var mask: OutputMask?
        if let path = arguments.value("env-file") {
            guard arguments.value("env") == nil else {
                throw .usage("--env and --env-file do not mix: name the variable in the env file")
            }
            let resolved = try resolve(EnvFile(path: path), arguments, global)
            environment.merge(resolved.variables) { $1 }
            if arguments.has("mask") { mask = OutputMask(resolved.secrets) }
            key = resolved.secrets.first?.key
        } else {
            guard !arguments.has("mask") else { throw .usage("--mask needs --env-file") }
            let name = try variableName(arguments.value("env"))
            let requirement = try TokenRequirement.parse(arguments, key: global.session)
            let issued = try TokenSource.issue(requirement, global).forEnvironment()
            key = issued.key
            environment[name] = issued.token
            environment["AUTHDECK_SESSION"] = issued.key
        }
        do throws(ChildProcess.StartFailure) {
            guard arguments.has("step-up-watch") else {
                exit(try start(command, environment: environment, mask: mask))
            }
            let (status, challenge) = try StepUpWatch.run(command, environment: environment, mask: mask)
            if let challenge, let key {
                // RFC 9470: the resource wants a stronger or more recent sign-in than this token carries. The agent
                // the token came from is told too, so it hands out no more of the session's tokens until then.
                var command = challenge.command(key: key)
                if let socket = TokenSource.agentSocket(global) {
                    do throws(CommandFailure) {
                        command = try AgentClient(path: socket).reportStepUp(challenge, key: key)
                    } catch {
                        global.err("authdeck exec: the agent was not told of the step-up: \(error.message)\n")
                    }
                }
                global.err(
                    "authdeck exec: the resource asked for a stronger sign-in (\(challenge.summary)): run "
                        + command + "\n")
            }
            exit(status)
        } catch {
            switch error {
            case .notFound:
                global.err("authdeck exec: \(command[0]): command not found\n")
                exit(127)
            case .notExecutable(let reason):
                global.err("authdeck exec: \(command[0]): \(reason)\n")
                exit(126)
            }
        }
    }

    /// The env file's variables with every reference resolved (refreshed as `token` would), before anything runs;
    /// a reference that cannot be resolved is refused in one line naming its file and line, with its exit code.
    static func resolve(
        _ file: EnvFile, _ arguments: Arguments, _ global: GlobalOptions
    ) throws(CommandFailure) -> (variables: [String: String], secrets: [(value: String, key: String)]) {
        var variables: [String: String] = [:]
        var secrets: [(value: String, key: String)] = []
        for entry in file.entries {
            switch entry.value {
            case .literal(let text):
                variables[entry.name] = text
            case .reference(let key, let idToken):
                var requirement = try TokenRequirement.parse(arguments, key: key)
                requirement.idToken = idToken
                do throws(CommandFailure) {
                    let issued = try TokenSource.issue(requirement, global).forEnvironment()
                    variables[entry.name] = issued.token
                    secrets.append((issued.token, issued.key))
                } catch {
                    var failure = CommandFailure(error.code, "\(entry.place): \(error.message)")
                    failure.showsUsage = false
                    throw failure
                }
            }
        }
        return (variables, secrets)
    }

    /// Runs `command` to its end: through pipes when its output is masked, else on authdeck's own stdout and stderr.
    private static func start(
        _ command: [String], environment: [String: String], mask: OutputMask?
    ) throws(ChildProcess.StartFailure) -> Int32 {
        guard let mask else { return try ChildProcess.start(command, environment: environment).wait() }
        return try StepUpWatch.run(command, environment: environment, mask: mask).status
    }

    /// A shell variable name: letters, digits and underscores, not starting with a digit.
    static func variableName(_ given: String?) throws(CommandFailure) -> String {
        guard let given else { return "AUTHDECK_TOKEN" }
        let valid =
            !given.isEmpty && given.utf8.count <= 128
            && given.utf8.enumerated().allSatisfy { index, byte in
                byte == UInt8(ascii: "_") || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
                    || (index > 0 && byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            }
        guard valid else {
            throw .usage("--env needs a variable name (letters, digits, _; not starting with a digit)")
        }
        guard given != "AUTHDECK_SESSION" else {
            throw .usage("--env cannot be AUTHDECK_SESSION, which holds the key")
        }
        return given
    }
}
