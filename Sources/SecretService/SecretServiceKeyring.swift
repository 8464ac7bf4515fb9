import AuthCrypto
internal import CLibsecret
import Foundation
import SessionStorage
import Synchronization

/// The master key held by the Secret Service (gnome-keyring, KeePassXC…) through libsecret, under the attributes
/// application=authdeck, kind=master-key, store=<store id>.
///
/// Every call runs on its own thread with a GCancellable and is abandoned past `timeoutSeconds`: a keyring that
/// hangs (a prompt nobody answers, a stuck daemon) must become an error, never a command that waits forever.
public struct SecretServiceKeyring: MasterKeyVault {
    public var timeoutSeconds: Int

    public init(timeoutSeconds: Int) {
        self.timeoutSeconds = timeoutSeconds
    }

    /// Whether a session bus can be found at all. Without one libsecret would try X11 autolaunch; skip that.
    public static func busConfigured(environment: [String: String]) -> Bool {
        SessionBus.configured(environment: environment)
    }

    /// The key, or nil when the Secret Service holds none for this store (a locked collection looks the same).
    public func lookup(storeID: String) throws(SecretServiceFailure) -> [UInt8]? {
        let text: String? = try run { api, cancellable, error in
            guard let secret = secret_shim_lookup(api, storeID, cancellable, error) else { return nil }
            defer { api.pointee.password_free(secret) }
            return String(cString: secret)
        }
        guard let text else { return nil }
        guard let key = Hex.decode(text), key.count == 32 else {
            throw SecretServiceFailure(message: "the stored master key is malformed", unreachable: false)
        }
        return key
    }

    public func store(_ key: [UInt8], storeID: String) throws(SecretServiceFailure) {
        let label = "authdeck master key (store \(storeID))"
        let text = Hex.encode(key)
        let stored: Bool = try run { api, cancellable, error in
            secret_shim_store(api, storeID, label, text, cancellable, error) != 0
        }
        if !stored {
            throw SecretServiceFailure(message: "the Secret Service refused to store the key", unreachable: false)
        }
    }

    @discardableResult
    public func clear(storeID: String) throws(SecretServiceFailure) -> Bool {
        try run { api, cancellable, error in secret_shim_clear(api, storeID, cancellable, error) != 0 }
    }

    /// Runs one blocking libsecret call on a fresh thread and waits at most `timeoutSeconds` for it. libsecret is
    /// loaded here, on the first call; a system without it has no Secret Service to reach.
    private func run<T: Sendable>(
        _ call:
            @escaping @Sendable (UnsafePointer<secret_shim_api>, UnsafeMutablePointer<GCancellable>?, ErrorSlot) -> T
    ) throws(SecretServiceFailure) -> T {
        var failure: UnsafePointer<CChar>?
        guard let api = secret_shim_api(&failure) else {
            throw SecretServiceFailure(
                message: failure.map { String(cString: $0) } ?? "cannot load libsecret", unreachable: true)
        }
        let box = CallResult<T>()
        guard let cancellable = api.pointee.cancellable_new() else {
            throw SecretServiceFailure(message: "cannot create a GCancellable", unreachable: true)
        }
        // One reference for the worker, one for us (to cancel it); each side drops its own.
        _ = api.pointee.object_ref(cancellable)
        let shared = CancellableReference(api: api, pointer: cancellable)
        Thread.detachNewThread {
            var error: UnsafeMutablePointer<GError>?
            let value = call(shared.api, shared.pointer, &error)
            if let error {
                box.finish(.failure(SecretServiceFailure(error, api: shared.api)))
                shared.api.pointee.error_free(error)
            } else {
                box.finish(.success(value))
            }
            shared.api.pointee.object_unref(shared.pointer)
        }
        defer { api.pointee.object_unref(cancellable) }
        guard let result = box.wait(seconds: timeoutSeconds) else {
            // The worker may stay blocked in D-Bus a little longer; it owns its reference and nothing waits on it.
            api.pointee.cancellable_cancel(cancellable)
            throw SecretServiceFailure(message: "timed out", unreachable: false, timedOut: true)
        }
        return try result.get()
    }
}

/// Where a libsecret call leaves its GError.
private typealias ErrorSlot = UnsafeMutablePointer<UnsafeMutablePointer<GError>?>

/// A GCancellable handed to the worker thread; GLib's cancellables are thread-safe.
// Unchecked: C pointers are not Sendable; the api table never changes once loaded and GCancellable is thread-safe.
private struct CancellableReference: @unchecked Sendable {
    let api: UnsafePointer<secret_shim_api>
    let pointer: UnsafeMutablePointer<GCancellable>
}

/// The worker's result, handed over under a lock; the waiter gives up after its deadline.
private final class CallResult<T: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Result<T, SecretServiceFailure>?>(nil)

    func finish(_ value: Result<T, SecretServiceFailure>) {
        result.withLock { $0 = value }
        done.signal()
    }

    func wait(seconds: Int) -> Result<T, SecretServiceFailure>? {
        guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
        return result.withLock { $0 }
    }
}
