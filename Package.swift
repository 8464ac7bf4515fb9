// swift-tools-version:6.0
// authdeck: a terminal account manager for sign-in sessions.
// Every dependency is the toolchain's own or a Debian C library wrapped as a system-library target.
import PackageDescription

/// A system-library target for one Debian C library: its module map and shim header live in Sources/<name>.
func systemLibrary(_ name: String, pkgConfig: String?, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

// The modules `authdeck token` runs: generic types such as [UInt8] are set up through their metadata accessors, not
// through mangled type names the runtime demangles on first use: 8% fewer instructions for a cached `token`
// (callgrind; BENCHMARKS.md).
let leanPathSettings: [SwiftSetting] = [
    .unsafeFlags([
        "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors",
        "-Xfrontend", "-disable-implicit-concurrency-module-import",
        "-Xfrontend", "-disable-implicit-string-processing-module-import",
    ])
]

/// Where Debian puts the headers of libsecret and GLib (`pkg-config --cflags libsecret-1`, without its libraries).
let libsecretHeaderFolders: [String] = {
    #if arch(arm64)
        let multiarch = "aarch64-linux-gnu"
    #else
        let multiarch = "x86_64-linux-gnu"
    #endif
    return [
        "/usr/include/libsecret-1", "/usr/include/glib-2.0", "/usr/lib/\(multiarch)/glib-2.0/include",
        "/usr/include/gio-unix-2.0",
    ]
}()

let package = Package(
    name: "authdeck",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "authdeck", targets: ["authdeck"])
    ],
    targets: [
        systemLibrary("CNcursesw", pkgConfig: "ncursesw", apt: ["libncurses-dev"]),
        systemLibrary("COpenSSL", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        systemLibrary("CCjose", pkgConfig: "cjose", apt: ["libcjose-dev", "libjansson-dev"]),
        // jansson alone: `store import` reads its JSON lines with it (SessionJSON).
        systemLibrary("CJansson", pkgConfig: "jansson", apt: ["libjansson-dev"]),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: ["libsqlite3-dev"]),
        // No pkg-config (it would link libmicrohttpd): the shim loads it with dlopen when a server first starts.
        systemLibrary("CMicroHTTPD", pkgConfig: nil, apt: ["libmicrohttpd-dev"]),
        // No pkg-config here: it would link libsecret and GLib into authdeck-full, which loads them with dlopen only
        // when a store asks the Secret Service (shim.h). SecretService passes the header folders itself.
        systemLibrary("CLibsecret", pkgConfig: nil, apt: ["libsecret-1-dev"]),
        systemLibrary("CKeyutils", pkgConfig: "libkeyutils", apt: ["libkeyutils-dev"]),
        systemLibrary("CQRencode", pkgConfig: "libqrencode", apt: ["libqrencode-dev"]),
        systemLibrary("CNettle", pkgConfig: "nettle", apt: ["nettle-dev"]),
        // libcurl's headers only: the library is opened with dlopen on the first request, never linked.
        systemLibrary("CCurl", pkgConfig: nil, apt: ["libcurl4-openssl-dev"]),
        // libfido2's headers only: opened with dlopen when a security key is first looked for, never linked.
        systemLibrary("CFido2", pkgConfig: nil, apt: ["libfido2-dev"]),

        // prctl and friends, variadic in C, for the process hardening both binaries do first; socket credentials.
        .target(name: "CProcess"),

        // Foundation-free modules: the lean `authdeck` binary links only AuthBase and StoreCore (and SQLite, Nettle,
        // keyutils; no libcrypto). AuthCore, AuthCrypto and SessionStorage re-export them, so their users import one.
        .target(name: "AuthBase", swiftSettings: leanPathSettings),
        .target(name: "AuthCipher", dependencies: ["COpenSSL"]),
        .target(
            name: "StoreCore", dependencies: ["AuthBase", "CNettle", "CSQLite", "CKeyutils", "CProcess"],
            swiftSettings: leanPathSettings),
        .target(name: "AuthCrypto", dependencies: ["AuthCipher", "COpenSSL", "CCjose"]),
        .target(name: "AuthCore", dependencies: ["AuthBase", "AuthCrypto"]),
        // The store never links libsecret: the Secret Service comes in as a vault from its own module, so the
        // lean `authdeck` binary below (the `token` hot path) loads neither GLib nor D-Bus code.
        .target(
            name: "SessionStorage",
            dependencies: ["StoreCore", "AuthCore", "AuthCrypto", "CSQLite", "CKeyutils", "CProcess", "CJansson"]),
        .target(
            name: "SecretService", dependencies: ["SessionStorage", "AuthCrypto", "CLibsecret"],
            swiftSettings: [.unsafeFlags(libsecretHeaderFolders.flatMap { ["-Xcc", "-I" + $0] })]),
        // The libmicrohttpd server both the loopback receiver and the sandbox answer on.
        .target(name: "LoopbackHTTP", dependencies: ["AuthCore", "CMicroHTTPD"]),
        // The WebAuthn authenticators: the software passkey (OpenSSL) and security keys (libfido2, loaded lazily).
        .target(name: "Passkeys", dependencies: ["AuthCore", "AuthCrypto", "CFido2"]),
        .target(
            name: "AuthClient",
            dependencies: [
                "AuthCore", "AuthCrypto", "LoopbackHTTP", "Passkeys", "CQRencode", "CProcess", "CCurl",
            ]),
        .target(name: "Sandbox", dependencies: ["AuthCore", "AuthCrypto", "LoopbackHTTP"]),
        .target(name: "TerminalUI", dependencies: ["AuthCore", "CNcursesw"]),
        // Everything authdeck does: the command table and each command, run with the environment passed in, so
        // tests can run most commands in their own process.
        .target(
            name: "AuthdeckCommands",
            dependencies: [
                "AuthCore", "AuthCrypto", "AuthClient", "SessionStorage", "SecretService", "Sandbox", "TerminalUI",
            ]
        ),
        // The `authdeck` binary hands every command it does not serve itself to this one.
        .executableTarget(
            name: "authdeck-full",
            dependencies: ["AuthdeckCommands", "SessionStorage"],
            path: "Sources/authdeck-full"
        ),
        // The command users run: `token` from the kernel-keyring cache and `--version` here, with only the store's
        // libraries loaded; anything else is exec'd into authdeck-full.
        .executableTarget(
            name: "authdeck",
            dependencies: ["StoreCore", "AuthBase"],
            path: "Sources/authdeck",
            // Linked statically: no dynamic loader, no symbol lookups and no relocations of a position-independent
            // image at start. These were most of `token`'s time (SPEC section 8; BENCHMARKS.md).
            swiftSettings: leanPathSettings,
            linkerSettings: [.unsafeFlags(["-static-executable"])]
        ),

        // What several test targets need alike: temporary folders, other programs run to their end, free ports,
        // polling, the other-user wrapper and the security-test precondition. Foundation only, not Testing: plain
        // `swift build` compiles it too, and the static standard library of release builds has no Testing module.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        // The in-process sandbox the sandbox and client suites start the same way (`FrozenSandbox`).
        .target(
            name: "SandboxTestSupport", dependencies: ["Sandbox", "TestSupport"], path: "Tests/SandboxTestSupport"),

        .testTarget(name: "AuthCryptoTests", dependencies: ["AuthCrypto", "TestSupport"]),
        .testTarget(name: "PasskeysTests", dependencies: ["Passkeys", "AuthCore", "AuthCrypto", "TestSupport"]),
        .testTarget(name: "AuthCoreTests", dependencies: ["AuthCore", "AuthCrypto", "TestSupport"]),
        .testTarget(
            name: "SessionStorageTests",
            dependencies: ["SessionStorage", "SecretService", "AuthCore", "AuthCrypto", "TestSupport"]),
        .testTarget(
            name: "AuthClientTests",
            dependencies: [
                "AuthClient", "AuthCore", "AuthCrypto", "LoopbackHTTP", "Passkeys", "Sandbox", "SandboxTestSupport",
                "TestSupport",
            ]),
        .testTarget(
            name: "SandboxTests",
            dependencies: ["Sandbox", "AuthCore", "AuthCrypto", "SandboxTestSupport", "TestSupport"]),
        .testTarget(
            name: "TerminalUITests", dependencies: ["TerminalUI", "AuthCore", "TestSupport"], exclude: ["Snapshots"]),
        .testTarget(
            name: "authdeckTests", dependencies: ["AuthdeckCommands", "AuthCrypto", "TestSupport"],
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
