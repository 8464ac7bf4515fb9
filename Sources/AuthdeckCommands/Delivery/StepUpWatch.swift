import AuthCore

#if canImport(Glibc)
    import Glibc
#endif

/// `exec --step-up-watch`: the command's stdout and stderr pass through unchanged while each line is looked at for
/// a `WWW-Authenticate` header carrying RFC 9470's `insufficient_user_authentication` (curl -i prints response
/// headers on stdout, curl -v on stderr as `< www-authenticate: …`). The first one seen is kept for afterwards.
struct StepUpWatch {
    /// A line longer than this is passed on but not looked at: no header authdeck needs is that long.
    static let longestLine = 16 * 1024

    private var lines: [Int32: [UInt8]] = [:]
    private var overlong: Set<Int32> = []
    private(set) var challenge: StepUpChallenge?

    /// Looks at `bytes`, the next output of the stream written to `descriptor`.
    mutating func look(at bytes: ArraySlice<UInt8>, from descriptor: Int32) {
        var line = lines[descriptor] ?? []
        for byte in bytes {
            if byte == UInt8(ascii: "\n") {
                if !overlong.contains(descriptor) { look(atLine: line) }
                overlong.remove(descriptor)
                line.removeAll(keepingCapacity: true)
            } else if line.count < Self.longestLine {
                line.append(byte)
            } else {
                overlong.insert(descriptor)
            }
        }
        lines[descriptor] = line
    }

    /// The end of a stream: its last line counts even without a newline.
    mutating func ended(_ descriptor: Int32) {
        if let line = lines[descriptor], !line.isEmpty, !overlong.contains(descriptor) { look(atLine: line) }
        lines[descriptor] = nil
    }

    private mutating func look(atLine bytes: [UInt8]) {
        guard challenge == nil else { return }
        var text = Substring(String(decoding: bytes, as: UTF8.self))
        if text.hasSuffix("\r") { text = text.dropLast() }
        if text.hasPrefix("< ") { text = text.dropFirst(2) }
        let name = "www-authenticate:"
        guard text.count > name.count, text.prefix(name.count).lowercased() == name else { return }
        challenge = StepUpChallenge.find(in: String(text.dropFirst(name.count)))
    }

    /// Runs `command` with its stdout and stderr through pipes, copied to authdeck's own as they come and watched;
    /// returns the command's exit status and the challenge seen, if any. Both pipes are read to their end, so a
    /// background process the command leaves holding them keeps authdeck waiting as it would keep a pipe reader.
    /// With `mask` (`exec --mask`), what is copied and watched is the output with the env file's secrets masked.
    static func run(
        _ command: [String], environment: [String: String], mask: OutputMask? = nil
    ) throws(ChildProcess.StartFailure) -> (status: Int32, challenge: StepUpChallenge?) {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else {
            throw .notExecutable("cannot make the pipes that watch its output")
        }
        // Only the child's dup2'd copies survive its exec; a stray copy would keep a pipe from ever ending.
        for descriptor in out + err { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        let child: ChildProcess
        do throws(ChildProcess.StartFailure) {
            child = try ChildProcess.start(command, environment: environment, output: (out[1], err[1]))
        } catch {
            for descriptor in out + err { close(descriptor) }
            throw error
        }
        close(out[1])
        close(err[1])
        var watch = StepUpWatch()
        var mask = mask
        var open: [(read: Int32, write: Int32)] = [(out[0], STDOUT_FILENO), (err[0], STDERR_FILENO)]
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !open.isEmpty {
            var polled = open.map { pollfd(fd: $0.read, events: Int16(POLLIN), revents: 0) }
            if poll(&polled, nfds_t(polled.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            var finished: [Int32] = []
            for (index, entry) in polled.enumerated() where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    finished.append(entry.fd)
                    continue
                }
                if let passed = mask?.pass(buffer[0..<count], from: entry.fd) {
                    writeAll(passed[...], to: open[index].write)
                    watch.look(at: passed[...], from: entry.fd)
                } else {
                    writeAll(buffer[0..<count], to: open[index].write)
                    watch.look(at: buffer[0..<count], from: entry.fd)
                }
            }
            for descriptor in finished {
                if let rest = mask?.ended(descriptor), let target = open.first(where: { $0.read == descriptor }) {
                    writeAll(rest[...], to: target.write)
                    watch.look(at: rest[...], from: descriptor)
                }
                watch.ended(descriptor)
                close(descriptor)
                open.removeAll { $0.read == descriptor }
            }
        }
        return (child.wait(), watch.challenge)
    }

    private static func writeAll(_ bytes: ArraySlice<UInt8>, to descriptor: Int32) {
        var rest = bytes
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // the reader went away (a closed pipe): the command's output has nowhere to go
            }
            rest = rest.dropFirst(written)
        }
    }
}
