// swift-tools-version:6.0
// authdeck: a terminal account manager for sign-in sessions.
// Every dependency is the toolchain's own or a Debian C library wrapped as a system-library target.
import PackageDescription

/// A system-library target for one Debian C library: its module map and shim header live in Sources/<name>.
func systemLibrary(_ name: String, pkgConfig: String?, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "authdeck",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "authdeck", targets: ["authdeck"]),
    ],
    targets: [
        systemLibrary("CNcursesw", pkgConfig: "ncursesw", apt: ["libncurses-dev"]),
        systemLibrary("COpenSSL", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        systemLibrary("CCjose", pkgConfig: "cjose", apt: ["libcjose-dev", "libjansson-dev"]),
        systemLibrary("CSQLite", pkgConfig: "sqlite3", apt: ["libsqlite3-dev"]),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        systemLibrary("CLibsecret", pkgConfig: "libsecret-1", apt: ["libsecret-1-dev"]),
        systemLibrary("CKeyutils", pkgConfig: "libkeyutils", apt: ["libkeyutils-dev"]),
        systemLibrary("CQRencode", pkgConfig: "libqrencode", apt: ["libqrencode-dev"]),
        // Fixed-argument wrappers for variadic C functions and C macros.
        .target(
            name: "CShims",
            dependencies: ["CMicroHTTPD", "CLibsecret", "CKeyutils"]
        ),

        .target(name: "AuthCrypto", dependencies: ["COpenSSL", "CCjose"]),
        .target(name: "AuthCore", dependencies: ["AuthCrypto"]),
        .target(name: "Keyring", dependencies: ["AuthCore", "AuthCrypto", "CSQLite", "CLibsecret", "CKeyutils", "CShims"]),
        .target(name: "AuthClient", dependencies: ["AuthCore", "AuthCrypto", "CMicroHTTPD", "CQRencode", "CShims"]),
        .target(name: "Sandbox", dependencies: ["AuthCore", "AuthCrypto", "AuthClient", "CMicroHTTPD", "CShims"]),
        .target(name: "TerminalUI", dependencies: ["AuthCore", "CNcursesw"]),
        .executableTarget(
            name: "authdeck",
            dependencies: ["AuthCore", "AuthCrypto", "AuthClient", "Keyring", "Sandbox", "TerminalUI"]
        ),

        .testTarget(name: "AuthCryptoTests", dependencies: ["AuthCrypto"]),
        .testTarget(name: "AuthCoreTests", dependencies: ["AuthCore", "AuthCrypto"]),
        .testTarget(name: "KeyringTests", dependencies: ["Keyring", "AuthCore", "AuthCrypto"]),
        .testTarget(name: "AuthClientTests", dependencies: ["AuthClient", "AuthCore", "AuthCrypto", "Sandbox"]),
        .testTarget(name: "SandboxTests", dependencies: ["Sandbox", "AuthClient", "AuthCore", "AuthCrypto"]),
        .testTarget(name: "TerminalUITests", dependencies: ["TerminalUI", "AuthCore"]),
        .testTarget(name: "authdeckTests", dependencies: ["AuthCore", "AuthCrypto"], exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
