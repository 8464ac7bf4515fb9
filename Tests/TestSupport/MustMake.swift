/// What `make` returns, for a suite's shared `static let` that no test can go on without (signing keys, a file the
/// suite reads): a failure stops the run there, naming `what` and the error.
public func mustMake<Value>(_ what: String, _ make: () throws -> Value) -> Value {
    do {
        return try make()
    } catch {
        fatalError("cannot make \(what): \(error)")
    }
}
