import AuthCore
import CCurl
import Foundation

/// One request on one libcurl easy handle, on the caller's thread: the options, and the answer as libcurl hands it
/// over (header lines, then body chunks). A body that would pass `limit`, or a Content-Length announcing one, stops
/// the transfer from inside the callback, so a hostile server never makes authdeck hold more than `limit` bytes.
final class CurlTransfer {
    private let library: CurlLibrary
    private let handle: UnsafeMutableRawPointer
    private let limit: Int
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// Header names lower-cased, repeated fields joined with ", ", from the last response block (so a
    /// `100 Continue` or a proxy's CONNECT answer does not mix in).
    private(set) var headers: [String: String] = [:]
    private var lastHeader: String?
    private(set) var body: [UInt8] = []
    /// The answer was (or announced itself) over `limit`; its body is dropped.
    private(set) var tooLarge = false

    init(_ library: CurlLibrary, limit: Int) throws(SignInError) {
        guard let handle = library.easyInit() else { throw .network(message: "libcurl could not start a transfer") }
        self.library = library
        self.handle = handle
        self.limit = limit
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        library.cleanup(handle)
        library.free(headerList)
        errorBuffer.deallocate()
    }

    /// Sets every option for `request`; a refused option is a one-line error (never expected with libcurl ≥ 7.85).
    func configure(
        _ request: OutgoingRequest, timeout: TimeInterval, userAgent: String, trust: CATrust
    ) throws(SignInError) {
        let context = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        try require(library.set(handle, CURLOPT_URL, request.url), "URL")
        // http and https only, whatever the URL (URLPolicy decided which already) and with no redirect to follow.
        if library.set(handle, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_UNKNOWN_OPTION {
            try require(library.set(handle, CURLOPT_PROTOCOLS, Int(CURLPROTO_HTTP | CURLPROTO_HTTPS)), "protocols")
        }
        try require(library.set(handle, CURLOPT_FOLLOWLOCATION, 0), "redirects")
        // No SIGALRM for name look-ups: several threads send at once.
        try require(library.set(handle, CURLOPT_NOSIGNAL, 1), "signals")
        // At least 1 ms: 0 would be libcurl's "no timeout".
        try require(library.set(handle, CURLOPT_TIMEOUT_MS, max(1, Int((timeout * 1000).rounded()))), "timeout")
        try require(library.set(handle, CURLOPT_ERRORBUFFER, pointer: errorBuffer), "error buffer")
        try require(library.set(handle, CURLOPT_USERAGENT, userAgent), "user agent")
        // Every encoding libcurl decodes is accepted and decoded; the cap applies to the decoded body.
        try require(library.set(handle, CURLOPT_ACCEPT_ENCODING, ""), "encodings")
        try require(library.set(handle, CURLOPT_HEADERFUNCTION, callback: curlTransferHeader), "header callback")
        try require(library.set(handle, CURLOPT_HEADERDATA, pointer: context), "header callback")
        try require(library.set(handle, CURLOPT_WRITEFUNCTION, callback: curlTransferBody), "body callback")
        try require(library.set(handle, CURLOPT_WRITEDATA, pointer: context), "body callback")
        // TLS peer and host verification stay libcurl's defaults (on), with the CA bundle Debian's libcurl4 names
        // unless config.json's caFile or SSL_CERT_FILE / SSL_CERT_DIR say otherwise (`CATrust`).
        let anchors = trust.anchors(for: request.url)
        if let file = anchors.file { try require(library.set(handle, CURLOPT_CAINFO, file), "CA file") }
        if let directory = anchors.directory {
            try require(library.set(handle, CURLOPT_CAPATH, directory), "CA folder")
        }
        if let certificate = request.clientCertificate {
            // Handed over as memory libcurl copies: the files were read (and the key's mode checked) once, and are
            // not opened again by name.
            try require(library.set(handle, CURLOPT_SSLCERTTYPE, "PEM"), "client certificate")
            try require(setBlob(CURLOPT_SSLCERT_BLOB, certificate.certificatePEM), "client certificate")
            try require(library.set(handle, CURLOPT_SSLKEYTYPE, "PEM"), "client certificate key")
            try require(setBlob(CURLOPT_SSLKEY_BLOB, certificate.keyPEM), "client certificate key")
        }
        try configureMethod(request)
        try configureHeaders(request)
    }

    /// A CURLOPT_*_BLOB option: libcurl copies the bytes during the call (CURL_BLOB_COPY).
    private func setBlob(_ option: CURLoption, _ bytes: [UInt8]) -> CURLcode {
        bytes.withUnsafeBytes { buffer in
            var blob = curl_blob(
                data: UnsafeMutableRawPointer(mutating: buffer.baseAddress), len: buffer.count,
                flags: UInt32(CURL_BLOB_COPY))
            return withUnsafePointer(to: &blob) { library.set(handle, option, pointer: $0) }
        }
    }

    private func configureMethod(_ request: OutgoingRequest) throws(SignInError) {
        switch request.method {
        case "GET" where request.body.isEmpty:
            try require(library.set(handle, CURLOPT_HTTPGET, 1), "method")
        case "GET":
            throw .unavailable(reason: "a GET request cannot carry a body")
        case "HEAD":
            try require(library.set(handle, CURLOPT_NOBODY, 1), "method")
        default:
            // POST and the rest send their body (possibly empty, then with Content-Length: 0), copied by libcurl.
            try require(library.set(handle, CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body.count)), "body")
            // Copied during the call; an empty body still needs an address.
            let copied = (request.body.isEmpty ? [0] : request.body).withUnsafeBytes { bytes in
                library.set(handle, CURLOPT_COPYPOSTFIELDS, pointer: bytes.baseAddress)
            }
            try require(copied, "body")
            if request.method != "POST" {
                try require(library.set(handle, CURLOPT_CUSTOMREQUEST, request.method), "method")
            }
        }
    }

    /// The request's headers, a later one replacing an earlier one of the same name (any case); libcurl's own
    /// `Expect: 100-continue` is turned off, and so is its default form Content-Type for an empty body.
    private func configureHeaders(_ request: OutgoingRequest) throws(SignInError) {
        var order: [String] = []
        var lines: [String: String] = [:]
        for (name, value) in request.headers {
            let badName = name.isEmpty || name.utf8.contains { $0 <= 0x20 || $0 == 0x3A || $0 >= 0x7F }
            guard !badName, !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                // Never the value: it may be a token.
                throw .unavailable(reason: "the request header '\(TerminalText.sanitized(name))' is not valid")
            }
            let key = name.lowercased()
            if lines[key] == nil { order.append(key) }
            // "Name;" is libcurl's form for a header with an empty value ("Name:" would remove it).
            lines[key] = value.isEmpty ? "\(name);" : "\(name): \(value)"
        }
        if request.method != "GET", request.method != "HEAD", request.body.isEmpty, lines["content-type"] == nil {
            order.append("content-type")
            lines["content-type"] = "Content-Type:"
        }
        if lines["expect"] == nil {
            order.append("expect")
            lines["expect"] = "Expect:"
        }
        for key in order {
            guard let line = lines[key], let list = library.append(headerList, line) else {
                throw .network(message: "libcurl could not take the request headers")
            }
            headerList = list
        }
        try require(library.set(handle, CURLOPT_HTTPHEADER, pointer: headerList), "headers")
    }

    private func require(_ code: CURLcode, _ what: String) throws(SignInError) {
        guard code == CURLE_OK else {
            throw .network(message: "libcurl refused the request's \(what): \(library.text(of: code))")
        }
    }

    /// Runs the exchange to its end, blocking the caller.
    func perform() -> CURLcode { library.perform(handle) }

    /// The status of the answer; 0 when none arrived.
    var status: Int { library.status(handle) }

    /// libcurl's detail for a failure (its error buffer, else the code's text), on one line, or its code's text
    /// alone when the detail would carry `hidden` (a URL's query).
    func failure(_ code: CURLcode, hiding hidden: String?) -> String {
        let raw = String(cString: errorBuffer)
        let line = String(raw.split { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }.first ?? "")
        let detail = TerminalText.sanitized(line).trimmingCharacters(in: .whitespaces)
        if detail.isEmpty || hidden.map({ !$0.isEmpty && detail.contains($0) }) == true {
            return library.text(of: code)
        }
        return detail
    }

    /// One header line from libcurl (status lines included); false stops the transfer.
    fileprivate func received(headerLine bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        // Without its CR LF (bytes: as a String, "\r\n" is one Character that neither "\r" nor "\n" matches).
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let line = String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            headers = [:]
            lastHeader = nil
            return true
        }
        if line.isEmpty { return true }
        if line.first == " " || line.first == "\t" {
            // An obsolete folded continuation of the previous field.
            if let name = lastHeader, let value = headers[name] {
                headers[name] = value + " " + line.trimmingCharacters(in: .whitespaces)
            }
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
        lastHeader = name
        if name == "content-length", let length = Int64(value), length > Int64(limit) {
            dropBody()
            return false
        }
        return true
    }

    /// A chunk of the (decoded) body; false stops the transfer once the body would pass the cap.
    fileprivate func received(body bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !tooLarge, body.count + bytes.count <= limit else {
            dropBody()
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    private func dropBody() {
        tooLarge = true
        body = []
    }
}

/// CURLOPT_HEADERFUNCTION: hands one header line to its transfer; a return other than `size * count` aborts.
private func curlTransferHeader(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let buffer, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeBufferPointer(
        start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: size * count)
    return transfer.received(headerLine: bytes) ? size * count : 0
}

/// CURLOPT_WRITEFUNCTION: hands one body chunk to its transfer; a return other than `size * count` aborts.
private func curlTransferBody(
    _ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    guard let context else { return 0 }
    guard let buffer, size * count > 0 else { return size * count }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let bytes = UnsafeBufferPointer(
        start: UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: size * count)
    return transfer.received(body: bytes) ? size * count : 0
}
