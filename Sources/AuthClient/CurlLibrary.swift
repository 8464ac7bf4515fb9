import AuthCore
import CCurl

/// libcurl's easy interface, opened with dlopen the first time a request is sent (the CCurl shim), so a process
/// that sends nothing (the TUI's start, `list`, `use`, `token`) never maps libcurl or the libraries it pulls in.
/// Only the handful of functions the shim's table holds are used; the variadic setopt and getinfo go through its
/// fixed-argument wrappers.
struct CurlLibrary: Sendable {
    /// The library's name as Debian's libcurl4 installs it: the ABI of the headers authdeck is built against (the
    /// shim opens this name).
    static let name = "libcurl.so.4"

    /// The process's libcurl, opened (and curl_global_init run) once by the shim, on first use; the reason when it
    /// is missing. The shim holds the function table; a value of this type says it loaded.
    static let shared: Result<CurlLibrary, SignInError> = open()

    private static func open() -> Result<CurlLibrary, SignInError> {
        var failure: UnsafePointer<CChar>?
        guard curl_shim_api(&failure) != nil else {
            var reason = failure.map { String(cString: $0) } ?? "unknown error"
            // dlerror starts with the file's name, which the line names already.
            if reason.hasPrefix(name + ": ") { reason.removeFirst(name.count + 2) }
            return .failure(.network(message: "cannot load \(name): \(reason); install libcurl4"))
        }
        return .success(CurlLibrary())
    }

    func easyInit() -> UnsafeMutableRawPointer? { curl_shim_easy_init() }

    func cleanup(_ handle: UnsafeMutableRawPointer) { curl_shim_easy_cleanup(handle) }

    func perform(_ handle: UnsafeMutableRawPointer) -> CURLcode { curl_shim_easy_perform(handle) }

    /// libcurl's one-line text for `code`.
    func text(of code: CURLcode) -> String {
        curl_shim_easy_strerror(code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) -> CURLcode {
        curl_shim_setopt_long(handle, option, value)
    }

    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, offset value: Int64) -> CURLcode {
        curl_shim_setopt_offset(handle, option, curl_off_t(value))
    }

    /// A string option: libcurl copies it (every string option but CURLOPT_POSTFIELDS, which is not used).
    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) -> CURLcode {
        value.withCString { curl_shim_setopt_pointer(handle, option, $0) }
    }

    /// A pointer option: the pointee must outlive the transfer.
    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, pointer value: UnsafeRawPointer?) -> CURLcode {
        curl_shim_setopt_pointer(handle, option, value)
    }

    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, callback value: curl_write_callback)
        -> CURLcode
    {
        curl_shim_setopt_callback(handle, option, value)
    }

    func status(_ handle: UnsafeMutableRawPointer) -> Int {
        var value = 0
        guard curl_shim_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &value) == CURLE_OK else { return 0 }
        return value
    }

    /// Appends a `Name: value` line to a header list (nil on allocation failure, the list then unchanged).
    func append(_ list: UnsafeMutablePointer<curl_slist>?, _ line: String) -> UnsafeMutablePointer<curl_slist>? {
        curl_shim_slist_append(list, line)
    }

    func free(_ list: UnsafeMutablePointer<curl_slist>?) { curl_shim_slist_free_all(list) }
}
