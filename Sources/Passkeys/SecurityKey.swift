import AuthCore
import AuthCrypto
import CFido2

/// A FIDO2 security key through libfido2, opened with dlopen when authdeck first looks for one (the CFido2 shim):
/// the credential's key never leaves the device; the store keeps its id. Without a PIN, user verification is left
/// to the key (CTAP2's `uv` omitted), so the relying party should ask `preferred`, as the sandbox does.
public struct SecurityKey: Sendable {
    /// One device libfido2 found: its path (`/dev/hidrawN`) and product name.
    public struct Device: Sendable, Equatable {
        public let path: String
        public let product: String
    }

    /// The library's name as Debian's libfido2-1 installs it (the shim opens this name).
    static let libraryName = "libfido2.so.1"
    /// How many devices one manifest call lists.
    static let manifestCapacity = 64

    private let api: fido_shim_table

    /// The process's libfido2, loaded once; a one-line reason naming the package when it is missing.
    public static let shared: Result<SecurityKey, PasskeyError> = {
        var failure: UnsafePointer<CChar>?
        guard let table = fido_shim_api(&failure) else {
            var reason = failure.map { String(cString: $0) } ?? "unknown error"
            // dlerror starts with the file's name, which the line names already.
            if reason.hasPrefix(libraryName + ": ") { reason.removeFirst(libraryName.count + 2) }
            return .failure(PasskeyError("cannot load \(libraryName): \(reason); install libfido2-1"))
        }
        return .success(SecurityKey(api: table.pointee))
    }()

    /// The security keys plugged in (`fido_dev_info_manifest`), in libfido2's order.
    public func devices() throws(PasskeyError) -> [Device] {
        guard let list = api.dev_info_new?(Self.manifestCapacity) else {
            throw PasskeyError("libfido2 cannot allocate a device list")
        }
        defer {
            var owned: OpaquePointer? = list
            api.dev_info_free?(&owned, Self.manifestCapacity)
        }
        var found = 0
        let status = api.dev_info_manifest?(list, Self.manifestCapacity, &found) ?? FIDO_ERR_INTERNAL
        guard status == FIDO_OK else { throw failure("listing security keys", status) }
        return (0..<found).compactMap { index in
            guard let info = api.dev_info_ptr?(list, index), let path = api.dev_info_path?(info) else { return nil }
            let product = api.dev_info_product_string?(info).map { String(cString: $0) } ?? "security key"
            return Device(path: String(cString: path), product: product)
        }
    }

    /// The first key plugged in, or the one line saying there is none.
    public func firstDevice() throws(PasskeyError) -> Device {
        guard let device = try devices().first else {
            throw PasskeyError("no FIDO2 security key is plugged in; plug one in or use --passkey software")
        }
        return device
    }

    /// makeCredential on `device` (CTAP2 section 6.1) for the relying party's options; the attestation object is
    /// built from what the key answered (its format, signature and certificate, and the raw authenticator data).
    public func register(
        _ options: CreationOptions, origin: String, on device: Device
    ) throws(PasskeyError) -> (credential: PasskeyCredential, response: RegistrationResponse) {
        try ClientData.check(relyingPartyID: options.relyingPartyID, origin: origin)
        guard options.algorithms.isEmpty || options.algorithms.contains(SoftwarePasskey.es256) else {
            throw PasskeyError("the relying party accepts no ES256 key, the only kind authdeck asks a security key for")
        }
        let (clientData, hash) = Self.collected(ClientData.create, options.challenge, origin)
        guard let credential = api.cred_new?() else { throw PasskeyError("libfido2 cannot allocate a credential") }
        defer {
            var owned: OpaquePointer? = credential
            api.cred_free?(&owned)
        }
        try check("the credential request", api.cred_set_type?(credential, COSE_ES256))
        try check("the client data hash", api.cred_set_clientdata_hash?(credential, hash, hash.count))
        try check("the relying party", api.cred_set_rp?(credential, options.relyingPartyID, options.relyingPartyName))
        try check(
            "the user",
            api.cred_set_user?(
                credential, options.userHandle, options.userHandle.count, options.userName, options.userName, nil))
        try withOpen(device) { handle throws(PasskeyError) in
            try check("makeCredential (touch the key)", api.dev_make_cred?(handle, credential, nil))
        }
        let authenticatorData = bytes(api.cred_authdata_raw_ptr?(credential), api.cred_authdata_raw_len?(credential))
        let credentialID = bytes(api.cred_id_ptr?(credential), api.cred_id_len?(credential))
        let format = api.cred_fmt?(credential).map { String(cString: $0) } ?? "none"
        let signature = bytes(api.cred_sig_ptr?(credential), api.cred_sig_len?(credential))
        let certificate = bytes(api.cred_x5c_ptr?(credential), api.cred_x5c_len?(credential))
        var statement: [(CBOR, CBOR)] = []
        if format == "packed" { statement.append((.text("alg"), .integer(Int64(SoftwarePasskey.es256)))) }
        if format != "none" {
            statement.append((.text("sig"), .bytes(signature)))
            if !certificate.isEmpty { statement.append((.text("x5c"), .array([.bytes(certificate)]))) }
        }
        let attestationObject = CBOR.map([
            (.text("fmt"), .text(format)), (.text("attStmt"), .map(statement)),
            (.text("authData"), .bytes(authenticatorData)),
        ]).encoded
        let stored = PasskeyCredential(
            kind: .hardware, relyingPartyID: options.relyingPartyID, credentialID: Base64URL.encode(credentialID),
            userHandle: Base64URL.encode(options.userHandle), userName: options.userName, privateKeyHex: nil,
            signCount: 0)
        return (
            stored,
            RegistrationResponse(
                credentialID: credentialID, clientDataJSON: clientData, attestationObject: attestationObject)
        )
    }

    /// getAssertion on `device` (CTAP2 section 6.2) for the stored credential.
    public func assert(
        _ options: RequestOptions, origin: String, credential: PasskeyCredential, on device: Device
    ) throws(PasskeyError) -> (credential: PasskeyCredential, response: AssertionResponse) {
        try PasskeyChoice.check(options, credential: credential)
        try ClientData.check(relyingPartyID: credential.relyingPartyID, origin: origin)
        let credentialID = Base64URL.decode(credential.credentialID) ?? []
        let (clientData, hash) = Self.collected(ClientData.get, options.challenge, origin)
        guard let assertion = api.assert_new?() else { throw PasskeyError("libfido2 cannot allocate an assertion") }
        defer {
            var owned: OpaquePointer? = assertion
            api.assert_free?(&owned)
        }
        try check("the client data hash", api.assert_set_clientdata_hash?(assertion, hash, hash.count))
        try check("the relying party", api.assert_set_rp?(assertion, credential.relyingPartyID))
        try check("the credential id", api.assert_allow_cred?(assertion, credentialID, credentialID.count))
        try withOpen(device) { handle throws(PasskeyError) in
            try check("getAssertion (touch the key)", api.dev_get_assert?(handle, assertion, nil))
        }
        guard api.assert_count?(assertion) ?? 0 >= 1 else {
            throw PasskeyError("the security key answered no assertion")
        }
        // libfido2 hands the authenticator data as the CBOR byte string CTAP2 sent; WebAuthn wants its contents.
        let wrapped = bytes(api.assert_authdata_ptr?(assertion, 0), api.assert_authdata_len?(assertion, 0))
        guard let authenticatorData = Self.unwrapByteString(wrapped), authenticatorData.count >= 37 else {
            throw PasskeyError("the security key's authenticator data is malformed")
        }
        var updated = credential
        updated.signCount = authenticatorData[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        let response = AssertionResponse(
            credentialID: credentialID, clientDataJSON: clientData, authenticatorData: authenticatorData,
            signature: bytes(api.assert_sig_ptr?(assertion, 0), api.assert_sig_len?(assertion, 0)),
            userHandle: Base64URL.decode(credential.userHandle))
        return (updated, response)
    }

    /// The client data for a ceremony and its SHA-256, which is all the key is given of it.
    private static func collected(
        _ type: String, _ challenge: [UInt8], _ origin: String
    ) -> (json: [UInt8], hash: [UInt8]) {
        let json = ClientData.json(type: type, challenge: challenge, origin: origin)
        return (json, SHA256.hash(json))
    }

    /// The contents of one CBOR byte string (major type 2, definite length).
    static func unwrapByteString(_ bytes: [UInt8]) -> [UInt8]? {
        guard let first = bytes.first, first >> 5 == 2 else { return nil }
        let info = Int(first & 0x1f)
        let width: Int
        switch info {
        case 0..<24: return bytes.count == 1 + info ? Array(bytes.dropFirst()) : nil
        case 24...27: width = 1 << (info - 24)
        default: return nil
        }
        guard bytes.count > width else { return nil }
        let length = bytes[1...width].reduce(0) { $0 << 8 | Int($1) }
        return bytes.count == 1 + width + length ? Array(bytes.dropFirst(1 + width)) : nil
    }

    private func withOpen(
        _ device: Device, _ body: (OpaquePointer) throws(PasskeyError) -> Void
    ) throws(PasskeyError) {
        guard let handle = api.dev_new?() else { throw PasskeyError("libfido2 cannot allocate a device") }
        defer {
            var owned: OpaquePointer? = handle
            api.dev_free?(&owned)
        }
        try check("opening \(device.product) at \(device.path)", api.dev_open?(handle, device.path))
        defer { _ = api.dev_close?(handle) }
        try body(handle)
    }

    private func bytes(_ pointer: UnsafePointer<UInt8>?, _ count: Int?) -> [UInt8] {
        guard let pointer, let count, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }

    private func check(_ step: String, _ status: Int32?) throws(PasskeyError) {
        let status = status ?? FIDO_ERR_INTERNAL
        guard status == FIDO_OK else { throw failure(step, status) }
    }

    private func failure(_ step: String, _ status: Int32) -> PasskeyError {
        let text = api.strerr?(status).map { String(cString: $0) } ?? "error \(status)"
        return PasskeyError("the security key refused \(step): \(text)")
    }
}
