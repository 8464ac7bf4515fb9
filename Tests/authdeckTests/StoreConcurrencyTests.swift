import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Several real authdeck processes on one store: concurrent writers, and a writer killed with SIGKILL.
@Suite struct StoreConcurrencyTests {
    let folder = TemporaryFolder()
    var home: String { folder.path + "/home" }

    func runner() -> CLIRunner {
        CLIRunner(home: home, passphraseFile: folder.write("passphrase", "concurrency\n"))
    }

    /// Keys in `list --json`, or nil when listing failed.
    func listedKeys(_ runner: CLIRunner) -> Set<String>? {
        let result = runner.run(["list", "--json"])
        guard result.status == 0,
            let array = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]
        else {
            return nil
        }
        return Set(array.compactMap { $0["key"] as? String })
    }

    /// Each worker adds sessions and deletes every third one again, for `seconds`, printing what succeeded.
    static let workerScript = """
        #!/usr/bin/env bash
        id=$1; end=$(( $(date +%s%N) / 1000000 + $2 )); i=0
        while [ $(( $(date +%s%N) / 1000000 )) -lt "$end" ]; do
            k="w$id-$i"
            if printf '{"key":"%s","accessToken":"tok-%s"}\\n' "$k" "$k" \\
                | "$AUTHDECK_BIN" store import - --quiet 2>>"$3"; then echo "ADD $k"; else echo "FAIL add $k"; fi
            if [ $((i % 3)) = 1 ]; then
                if "$AUTHDECK_BIN" logout "$k" --quiet 2>>"$3"; then echo "DEL $k"; else echo "FAIL del $k"; fi
            fi
            i=$((i + 1))
        done
        """

    @Test(arguments: [2, 8])
    func concurrentWritersLoseNothingAndNeverShowLocked(_ processes: Int) throws {
        let runner = runner()
        // Create the store and cache its key, so the workers measure contention, not scrypt.
        #expect(runner.run(["store", "import", "-"], stdin: "{\"key\":\"seed\",\"accessToken\":\"t\"}\n").status == 0)
        let script = folder.write("worker.sh", Self.workerScript)
        chmod(script, 0o755)
        var workers: [(SpawnedProcess, String, String)] = []
        for id in 0..<processes {
            let out = folder.path + "/out-\(processes)-\(id)"
            let err = folder.path + "/err-\(processes)-\(id)"
            FileManager.default.createFile(atPath: err, contents: nil)
            let process = try runner.spawn(
                executable: "/bin/bash", [script, "\(processes)x\(id)", "3000", err],
                stdoutPath: out)
            workers.append((process, out, err))
        }
        var expected: Set<String> = ["seed"]
        var deleted: Set<String> = []
        for (process, out, err) in workers {
            #expect(process.wait(timeout: 60).timedOut == false)
            let lines = String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self)
                .split(separator: "\n")
            let failures = lines.filter { $0.hasPrefix("FAIL") }
            #expect(failures.isEmpty, "a worker saw a failure: \(failures)")
            for line in lines {
                let parts = line.split(separator: " ")
                guard parts.count == 2 else { continue }
                if parts[0] == "ADD" { expected.insert(String(parts[1])) }
                if parts[0] == "DEL" { deleted.insert(String(parts[1])) }
            }
            let errors = String(decoding: FileManager.default.contents(atPath: err) ?? Data(), as: UTF8.self)
            #expect(errors.isEmpty, "a worker printed errors: \(errors.prefix(400))")
            #expect(!errors.contains("locked") && !errors.contains("busy"))
        }
        expected.subtract(deleted)
        #expect(expected.count > processes, "the workers did too little to test anything: \(expected.count)")
        #expect(listedKeys(runner) == expected)
        if let sample = expected.first(where: { $0 != "seed" }) {
            #expect(runner.run(["token", sample]).stdout == "tok-\(sample)\n")
        }
    }

    /// Imports batches of 40 sessions in a loop, printing each batch number after its import returned.
    static let batchScript = """
        #!/usr/bin/env bash
        round=$1; dir=$2; i=0
        while true; do
            file="$dir/batch-$round.jsonl"; : > "$file"
            for j in $(seq 0 39); do
                printf '{"key":"r%s-b%s-%s","accessToken":"tok-%s-%s"}\\n' "$round" "$i" "$j" "$i" "$j" >> "$file"
            done
            "$AUTHDECK_BIN" store import "$file" --quiet && echo "OK $i"
            i=$((i + 1))
        done
        """

    @Test func sigkillDuringAWriteLoopKeepsEveryReturnedWrite() throws {
        let runner = runner()
        #expect(runner.run(["store", "import", "-"], stdin: "{\"key\":\"seed\",\"accessToken\":\"t\"}\n").status == 0)
        let script = folder.write("batch.sh", Self.batchScript)
        chmod(script, 0o755)
        var confirmed: [Int: Set<Int>] = [:]
        for round in 0..<3 {
            let out = folder.path + "/batch-out-\(round)"
            let loop = try runner.spawn(executable: "/bin/bash", [script, "\(round)", folder.path], stdoutPath: out)
            usleep(UInt32(700_000 + round * 170_000))
            // Kill the loop and whatever authdeck it is running right now, mid-write or not, without warning.
            let children = Self.children(of: loop.pid)
            loop.kill(SIGKILL)
            for child in children { kill(child, SIGKILL) }
            _ = loop.wait(timeout: 10)
            // The killed children were the loop's, now reparented; wait until they are really gone.
            for child in children { while Glibc.kill(child, 0) == 0 { usleep(5_000) } }
            let lines = String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self)
            confirmed[round] = Set(
                lines.split(separator: "\n").compactMap { line in
                    line.split(separator: " ").last.flatMap { Int($0) }
                })
        }
        let keys = try #require(listedKeys(runner), "the database must open after the kills")
        for (round, batches) in confirmed {
            #expect(!batches.isEmpty, "round \(round) committed nothing before the kill")
            for batch in batches {
                for index in 0..<40 { #expect(keys.contains("r\(round)-b\(batch)-\(index)")) }
            }
        }
        // A batch is one transaction: the one cut off is there entirely or not at all.
        var batchSizes: [String: Int] = [:]
        for key in keys where key.hasPrefix("r") {
            let parts = key.split(separator: "-")
            batchSizes[parts[0] + "-" + parts[1], default: 0] += 1
        }
        for (batch, size) in batchSizes { #expect(size == 40, "batch \(batch) is partial: \(size) of 40") }
        #expect(runner.run(["token", "r0-b0-0"]).stdout == "tok-0-0\n")
    }

    /// The direct children of `pid`, from /proc.
    static func children(of pid: Int32) -> [Int32] {
        let path = "/proc/\(pid)/task/\(pid)/children"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}
