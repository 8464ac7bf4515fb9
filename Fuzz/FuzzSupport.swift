// Shared by every fuzz target (compiled into each one; see scripts/fuzz.sh).
#if canImport(Glibc)
    import Glibc
#endif

/// `char ***argv` of LLVMFuzzerInitialize.
public typealias FuzzArguments = UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?

// libFuzzer's two entry points, the same for every target: each target's file defines `fuzzSeeds()` (what
// `scripts/fuzz.sh --write-seeds` keeps) and `fuzzOne(_:)` (the checks on one input).

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: FuzzArguments) -> CInt {
    writeSeedsIfAsked(fuzzSeeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzOne(fuzzBytes(data, size))
    return 0
}

/// The fuzzer's input as an array; libFuzzer may pass a null pointer for the empty input.
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// A broken invariant is as much a finding as a crash: say which one, then abort so libFuzzer keeps the input.
func invariant(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
    line: UInt = #line
) {
    guard !condition() else { return }
    report("fuzz invariant broken (line \(line)): \(message())\n")
    abort()
}

/// Writes the seeds a target generates (valid blobs, signed tokens: inputs only the real code can make) into
/// `$AUTHDECK_FUZZ_WRITE_SEEDS` and exits; `scripts/fuzz.sh --write-seeds` runs each target this way.
/// Does nothing during fuzzing.
func writeSeedsIfAsked(_ seeds: () -> [(name: String, bytes: [UInt8])]) {
    guard let folder = getenv("AUTHDECK_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) else { return }
    for seed in seeds() {
        let path = folder + "/" + seed.name
        guard let file = fopen(path, "wb") else {
            report("cannot write \(path)\n")
            exit(1)
        }
        _ = seed.bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
    }
    exit(0)
}

/// Straight to file descriptor 2: Swift 6 refuses the C `stderr` global, and nothing is buffered before abort().
func report(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count) }
}

/// Whether a message shown to the user is one printable line: no C0 or C1 control character, no DEL.
func isOneLine(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { $0.value >= 0x20 && !(0x7F..<0xA0).contains($0.value) }
}
