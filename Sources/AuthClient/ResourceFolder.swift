import Foundation

/// Where authdeck's data files (Resources/) are: `$AUTHDECK_RESOURCES`, else `share/authdeck` next to the
/// installed binary, else the source tree's Resources folder (a build run from its checkout).
public enum ResourceFolder {
    public static func locate(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let explicit = environment["AUTHDECK_RESOURCES"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit)
        }
        // bin/authdeck and lib/authdeck/authdeck-full both find PREFIX/share/authdeck.
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var folder = executable.deletingLastPathComponent()
        for _ in 0..<3 {
            folder = folder.deletingLastPathComponent()
            let installed = folder.appendingPathComponent("share/authdeck")
            if FileManager.default.fileExists(atPath: installed.appendingPathComponent("providers.json").path) {
                return installed
            }
        }
        // Sources/AuthClient/ResourceFolder.swift → the checkout's Resources.
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Resources")
    }

    public static func read(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> Data?
    {
        try? Data(contentsOf: locate(environment: environment).appendingPathComponent(name))
    }
}
