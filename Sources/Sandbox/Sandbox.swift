/// The Sandbox module. See SPEC.md section 1 for what it owns.
public enum SandboxModule {}
