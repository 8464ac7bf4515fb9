import AuthCore
import CCurl

/// libcurl's easy interface, opened with dlopen the first time a request is sent (the CCurl shim), so a process
/// that sends nothing (the TUI's start, `list`, `use`, `token`) never maps libcurl or the libraries it pulls in.
/// Only the handful of functions the shim's table holds are used; the variadic setopt and getinfo go through its
/// fixed-argument wrappers.
// Unchecked: the function table is a C pointer (not Sendable) to data that never changes once loaded.
struct CurlLibrary: @unchecked Sendable {
    /// The library's name as Debian's libcurl4 installs it: the ABI of the headers authdeck is built against.
    static let name = "libcurl.so.4"

    /// The process's libcurl, opened (and curl_global_init run) once, on first use; the reason when it is missing.
    static let shared: Result<CurlLibrary, SignInError> = open(name)

    // The table lives for the rest of the process: libcurl is never closed once opened.
    private let table: UnsafePointer<curl_shim_table>

    private static func open(_ name: String) -> Result<CurlLibrary, SignInError> {
        var error = [CChar](repeating: 0, count: 512)
        guard let table = curl_shim_load(name, &error, error.count) else {
            var reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // dlerror starts with the file's name, which the line names already.
            if reason.hasPrefix(name + ": ") { reason.removeFirst(name.count + 2) }
            return .failure(.network(message: "cannot load \(name): \(reason); install libcurl4"))
        }
        return .success(CurlLibrary(table: table))
    }

    func easyInit() -> UnsafeMutableRawPointer? { curl_shim_easy_init(table) }

    func cleanup(_ handle: UnsafeMutableRawPointer) { curl_shim_easy_cleanup(table, handle) }

    func perform(_ handle: UnsafeMutableRawPointer) -> CURLcode { curl_shim_easy_perform(table, handle) }

    /// libcurl's one-line text for `code`.
    func text(of code: CURLcode) -> String {
        curl_shim_easy_strerror(table, code).map { String(cString: $0) } ?? "libcurl error \(code.rawValue)"
    }

    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: Int) -> CURLcode {
        curl_shim_setopt_long(table, handle, option, value)
    }

    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, offset value: Int64) -> CURLcode {
        curl_shim_setopt_offset(table, handle, option, curl_off_t(value))
    }

    /// A string option: libcurl copies it (every string option but CURLOPT_POSTFIELDS, which is not used).
    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) -> CURLcode {
        value.withCString { curl_shim_setopt_pointer(table, handle, option, $0) }
    }

    /// A pointer option: the pointee must outlive the transfer.
    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, pointer value: UnsafeRawPointer?) -> CURLcode {
        curl_shim_setopt_pointer(table, handle, option, value)
    }

    func set(_ handle: UnsafeMutableRawPointer, _ option: CURLoption, callback value: curl_write_callback)
        -> CURLcode
    {
        curl_shim_setopt_callback(table, handle, option, value)
    }

    func status(_ handle: UnsafeMutableRawPointer) -> Int {
        var value = 0
        guard curl_shim_getinfo_long(table, handle, CURLINFO_RESPONSE_CODE, &value) == CURLE_OK else { return 0 }
        return value
    }

    /// Appends a `Name: value` line to a header list (nil on allocation failure, the list then unchanged).
    func append(_ list: UnsafeMutablePointer<curl_slist>?, _ line: String) -> UnsafeMutablePointer<curl_slist>? {
        curl_shim_slist_append(table, list, line)
    }

    func free(_ list: UnsafeMutablePointer<curl_slist>?) { curl_shim_slist_free_all(table, list) }
}
