#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ against the real module sources and runs them.
#
#   scripts/fuzz.sh                 every target for $FUZZ_SECONDS (default 60) each; fails on a crash or hang
#   scripts/fuzz.sh --smoke         every target over its seed corpus plus $FUZZ_SMOKE_SECONDS (default 3) each
#   scripts/fuzz.sh --build         only build (into .build/fuzz/)
#   scripts/fuzz.sh --write-seeds   regenerate the generated seeds in Fuzz/corpus/<target>/ (see Fuzz/README.md)
#   scripts/fuzz.sh [mode] NAME...  only the named targets (callback jws responses storeblob contact display
#                                   shellword)
#
# The fuzzers are built with swiftc directly, not through Package.swift: the sanitizer flags would slow every
# ordinary build and test. Each module is compiled once into .build/fuzz/ and rebuilt only when a content hash of
# its sources, its dependencies and the flags changes, so a smoke run after an unrelated change costs seconds.
# Crash and hang inputs land in Fuzz/crashes/ (git-ignored); reproduce one with `.build/fuzz/bin/<target> FILE`.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

mode=run
case "${1:-}" in
    --smoke) mode=smoke; shift ;;
    --build) mode=build; shift ;;
    --write-seeds) mode=seeds; shift ;;
    --run) shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
esac

all_targets=(callback jws responses storeblob contact display shellword)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

SWIFTC=${SWIFTC:-swiftc}
# Swift's own crash backtracer would read memory ASan watches, bury the real report under a false one and linger
# after the fuzzer exits; libFuzzer prints the stack itself.
export SWIFT_BACKTRACE=enable=no
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_SMOKE_SECONDS=${FUZZ_SMOKE_SECONDS:-3}
out="$root/.build/fuzz"
mkdir -p "$out/lib" "$out/bin" "$out/obj" "$out/modulemaps/CProcess"

# Optimised fuzzers run several times more inputs per second; whole-module mode compiles an optimised module in
# about a third of the time per-file mode takes. -g keeps stack traces readable.
swift_flags=(-swift-version 6 -parse-as-library -O -wmo -num-threads 2 -g -sanitize=fuzzer,address -use-ld=lld
    -I Sources/CNettle
    -I "$out/lib" -I Sources/COpenSSL -I Sources/CCjose -I Sources/CJansson -I Sources/CSQLite
    -I Sources/CKeyutils -I Sources/CMicroHTTPD -I Sources/CCurl -I Sources/CQRencode -I Sources/CNcursesw
    -I Sources/CFido2
    -I "$out/modulemaps/CProcess")
for flag in $(pkg-config --cflags libmicrohttpd); do swift_flags+=(-Xcc "$flag"); done
c_libs=(-lcrypto -lcjose -ljansson -lnettle)
# -package-name as SwiftPM passes it, only where `package` declarations are made or used (AuthBase, AuthCipher and
# StoreCore share them with AuthCrypto and SessionStorage): given to TerminalUI, the optimiser leaves a generic
# specialisation out of its library and the display target does not link.
package_flags=(-package-name authdeck)
uses_package() {
    case " AuthBase AuthCipher AuthCrypto StoreCore SessionStorage " in *" $1 "*) return 0 ;; esac
    return 1
}

toolchain=$("$SWIFTC" --version 2>&1 | head -1)

# sha256 over the flags, the toolchain and the contents of the given files.
content_hash() {
    { printf '%s\n' "$toolchain" "${swift_flags[@]}"; cat "$@"; } | sha256sum | cut -d' ' -f1
}

# Runs swiftc, keeping the linker's noise about sanitizer symbols out of the log.
swiftc_quiet() {
    local log arg args=()
    log=$(mktemp)
    # Run from a folder under .build, with the repository's relative paths made absolute: swiftc leaves partial
    # module files (SessionStorage-1.swiftmodule …) in its working directory, which must not be the repository root.
    for arg in "$@"; do
        if [[ $arg != /* && $arg != -* && -e "$root/$arg" ]]; then args+=("$root/$arg"); else args+=("$arg"); fi
    done
    mkdir -p "$out/work"
    if ! (cd "$out/work" && "$SWIFTC" "${args[@]}") >"$log" 2>&1; then
        grep -v -e 'Cannot export local symbol' "$log" >&2 || true
        rm -f "$log"
        return 1
    fi
    grep -e 'error:' "$log" >&2 || true
    rm -f "$log"
}

# The CProcess target (prctl, socket credentials) has no module map of its own (SwiftPM makes one for C targets),
# so one is written here. The other C wrappers are system-library targets whose shims are static inline.
build_cprocess() {
    local hash
    hash=$(content_hash Sources/CProcess/process.c Sources/CProcess/include/CProcess.h)
    if [ "$(cat "$out/obj/CProcess.hash" 2>/dev/null)" = "$hash" ]; then return 0; fi
    printf 'module CProcess {\n    header "%s"\n    export *\n}\n' "$root/Sources/CProcess/include/CProcess.h" \
        >"$out/modulemaps/CProcess/module.modulemap"
    cc -c -O1 -fPIC -I Sources/CProcess/include Sources/CProcess/process.c -o "$out/obj/CProcess.o" || return 1
    echo "$hash" >"$out/obj/CProcess.hash"
}

# build_module NAME DEP...: Sources/NAME as a static library and module in .build/fuzz/lib, instrumented so
# libFuzzer sees coverage inside it too.
build_module() {
    local name=$1; shift
    local deps=("$@") sources inputs hash dep
    # A module's sources may sit in feature folders (TerminalUI's Screens/, Widgets/…).
    mapfile -t sources < <(find Sources/"$name" -name '*.swift' | LC_ALL=C sort)
    inputs=("${sources[@]}")
    for dep in "${deps[@]}"; do inputs+=("$out/lib/$dep.hash"); done
    hash=$(content_hash "${inputs[@]}")
    if [ "$(cat "$out/lib/$name.hash" 2>/dev/null)" = "$hash" ] && [ -f "$out/lib/lib$name.a" ]; then return 0; fi
    echo "fuzz: compiling module $name" >&2
    # A fresh archive: built over an old one, members of since-deleted sources would stay in it.
    rm -f "$out/lib/$name.hash" "$out/lib/lib$name.a"
    local own=()
    if uses_package "$name"; then own=("${package_flags[@]}"); fi
    swiftc_quiet "${swift_flags[@]}" "${own[@]}" -emit-library -static -emit-module -module-name "$name" \
        -emit-module-path "$out/lib/$name.swiftmodule" -o "$out/lib/lib$name.a" "${sources[@]}" || return 1
    echo "$hash" >"$out/lib/$name.hash"
}

# What each target is made of: the module it is compiled into (its own, or the module under test when it needs
# internal types), the Swift sources, the prebuilt modules it links and the C libraries.
target_recipe() {
    # AuthCore and AuthCrypto re-export AuthBase and AuthCipher, whose libraries link after them.
    local core=(AuthCore AuthCrypto AuthCipher AuthBase)
    case $1 in
        callback)
            module=FuzzCallback; sources=(Fuzz/CallbackFuzz.swift); modules=("${core[@]}"); extra=() ;;
        jws)
            module=FuzzJWS; sources=(Fuzz/JWSFuzz.swift); modules=("${core[@]}"); extra=() ;;
        responses)
            module=FuzzResponses; sources=(Fuzz/ResponsesFuzz.swift)
            modules=(AuthClient Passkeys LoopbackHTTP "${core[@]}")
            # libmicrohttpd, libcurl and libfido2 are opened with dlopen when first used (their shim headers): not
            # linked.
            extra=("$out/obj/CProcess.o" -lqrencode) ;;
        storeblob)
            # SecretsCodec is internal to SessionStorage: the target is compiled as the SessionStorage module itself.
            module=SessionStorage; sources=(Sources/SessionStorage/*.swift Fuzz/StoreBlobFuzz.swift)
            modules=(StoreCore "${core[@]}")
            extra=("$out/obj/CProcess.o" -lsqlite3 -lkeyutils) ;;
        contact)
            module=FuzzContact; sources=(Fuzz/ContactFuzz.swift); modules=("${core[@]}"); extra=() ;;
        display)
            module=FuzzDisplay; sources=(Fuzz/DisplayFuzz.swift); modules=(TerminalUI "${core[@]}")
            extra=(-lncursesw -ltinfo) ;;
        shellword)
            module=FuzzShellWord; sources=(Fuzz/ShellWordFuzz.swift); modules=(AuthBase); extra=() ;;
        *) echo "fuzz: no target named '$1' (targets: ${all_targets[*]})" >&2; return 1 ;;
    esac
    sources+=(Fuzz/FuzzSupport.swift)
}

# Builds the modules a target needs (in dependency order), then the target; skips whatever is up to date.
build_target() {
    local name=$1 module sources modules extra hash inputs=() dep
    # Every step returns on failure by hand: callers run this under `||`, where `set -e` does not apply.
    target_recipe "$name" || return 1
    build_module AuthBase || return 1
    build_module AuthCipher || return 1
    build_module AuthCrypto AuthCipher || return 1
    build_module AuthCore AuthCrypto AuthBase || return 1
    case " ${extra[*]} " in *CProcess*) build_cprocess || return 1 ;; esac
    case " ${modules[*]} " in *" StoreCore "*) build_module StoreCore AuthBase || return 1 ;; esac
    case " ${modules[*]} " in *" LoopbackHTTP "*) build_module LoopbackHTTP AuthCore AuthCrypto || return 1 ;; esac
    case " ${modules[*]} " in *" Passkeys "*) build_module Passkeys AuthCore AuthCrypto || return 1 ;; esac
    case " ${modules[*]} " in
        *" AuthClient "*) build_module AuthClient LoopbackHTTP Passkeys AuthCore AuthCrypto || return 1 ;;
    esac
    case " ${modules[*]} " in *" TerminalUI "*) build_module TerminalUI AuthCore AuthCrypto || return 1 ;; esac
    inputs=("${sources[@]}")
    for dep in "${modules[@]}"; do inputs+=("$out/lib/$dep.hash"); done
    case " ${extra[*]} " in *CProcess*) inputs+=("$out/obj/CProcess.hash") ;; esac
    hash=$(content_hash "${inputs[@]}") || return 1
    if [ "$(cat "$out/bin/$name.hash" 2>/dev/null)" = "$hash" ] && [ -x "$out/bin/$name" ]; then return 0; fi
    echo "fuzz: linking target $name" >&2
    rm -f "$out/bin/$name.hash"
    local libs=()
    for dep in "${modules[@]}"; do libs+=(-l"$dep"); done
    local own=()
    if uses_package "$module"; then own=("${package_flags[@]}"); fi
    swiftc_quiet "${swift_flags[@]}" "${own[@]}" -module-name "$module" -o "$out/bin/$name" "${sources[@]}" \
        -L "$out/lib" "${libs[@]}" "${extra[@]}" "${c_libs[@]}" || return 1
    echo "$hash" >"$out/bin/$name.hash"
}

max_len_of() {
    case $1 in
        callback) echo 4096 ;; jws) echo 8192 ;; responses) echo 4096 ;; storeblob) echo 8192 ;;
        contact) echo 512 ;; display) echo 1024 ;; shellword) echo 1024 ;;
    esac
}

# run_target NAME SECONDS SCRATCH: fuzzes with the seeds (read-only) and a scratch corpus that collects new
# inputs; a crash, an out-of-memory or an input slower than 10 s fails the run and is saved to Fuzz/crashes/.
run_target() {
    local name=$1 seconds=$2 scratch=$3 dict=() log status=0
    mkdir -p "$scratch" Fuzz/crashes
    [ -f "Fuzz/$name.dict" ] && dict=(-dict="Fuzz/$name.dict")
    log=$(mktemp)
    # -print_funcs=0: symbolizing every newly covered function costs seconds at start, which a smoke run lacks.
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1} \
        "$out/bin/$name" -max_total_time="$seconds" -max_len="$(max_len_of "$name")" -timeout=10 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 -print_funcs=0 "${dict[@]}" \
        -artifact_prefix="Fuzz/crashes/$name-" "$scratch" "Fuzz/corpus/$name" >"$log" 2>&1 || status=$?
    local runs
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    if [ "$status" -ne 0 ]; then
        echo "fuzz: $name FAILED (exit $status); its input is in Fuzz/crashes/:" >&2
        grep -v -e '^#' -e '^INFO:' -e '^MERGE' "$log" | tail -40 >&2
        rm -f "$log"
        return 1
    fi
    echo "fuzz: $name ok, ${runs:-?} inputs in ${seconds}s"
    rm -f "$log"
}

# Builds the given targets; a target that does not build is reported and left out of the run, and fails it.
build_all() {
    built=()
    for name in "$@"; do
        if build_target "$name"; then built+=("$name"); else failed+=("$name (build)"); fi
    done
}

failed=()
passed=()
case $mode in
    build)
        build_all "${targets[@]}" ;;
    seeds)
        build_all "${targets[@]}"
        for name in "${built[@]}"; do
            mkdir -p "Fuzz/corpus/$name"
            AUTHDECK_FUZZ_WRITE_SEEDS="Fuzz/corpus/$name" "$out/bin/$name" >/dev/null
            echo "fuzz: $name seeds in Fuzz/corpus/$name ($(ls "Fuzz/corpus/$name" | wc -l) files)"
        done ;;
    smoke)
        started=$(date +%s)
        scratch_root=$(mktemp -d /tmp/authdeck-fuzz-smoke.XXXXXX)
        trap 'rm -rf "$scratch_root"' EXIT
        build_all "${targets[@]}"
        for name in "${built[@]}"; do
            if run_target "$name" "$FUZZ_SMOKE_SECONDS" "$scratch_root/$name"; then passed+=("$name")
            else failed+=("$name"); fi
        done
        echo "fuzz: smoke run took $(( $(date +%s) - started ))s" ;;
    run)
        build_all "${targets[@]}"
        for name in "${built[@]}"; do
            # The working corpus persists in .build/fuzz so each run starts where the last one stopped.
            if run_target "$name" "$FUZZ_SECONDS" "$out/corpus/$name"; then passed+=("$name")
            else failed+=("$name"); fi
        done ;;
esac
if [ "$mode" = smoke ] || [ "$mode" = run ]; then
    # The plain closing line test runners end with, so a log reader sees what this step checked.
    echo "fuzz: ${#passed[@]} passed, ${#failed[@]} failed"
fi
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: failing targets: ${failed[*]}" >&2; exit 1; }
