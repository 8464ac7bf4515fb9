/// authdeck's version, shared by both binaries.
public enum AuthdeckVersion {
    public static let current = "0.1.0"
}
