/// The AuthClient module. See SPEC.md section 1 for what it owns.
public enum AuthClientModule {}
