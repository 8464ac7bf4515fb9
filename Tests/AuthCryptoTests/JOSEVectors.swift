@testable import AuthCrypto

/// RFC 7515 appendix A: the shared payload, the A.2 (RS256) and A.3 (ES256) keys and tokens,
/// and the A.1 HS256 token.
enum JOSEVectors {
    static let payloadSegment =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let payload =
        Array("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)

    static let rsaModulus = """
        ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-\
        pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2Ca\
        pHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb5\
        4h4FRWyuXpoQ
        """
    static let rsaPublicJWK = #"{"kty":"RSA","n":"\#(rsaModulus)","e":"AQAB"}"#
    static let rs256Header = "eyJhbGciOiJSUzI1NiJ9"
    static let rs256Signature = """
        cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr\
        7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--\
        xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_I\
        oypGlUPQGe77Rw
        """
    static let rs256Token = "\(rs256Header).\(payloadSegment).\(rs256Signature)"

    static let ecX = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let ecY = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let ecD = "jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI"
    static let ecPublicJWK = #"{"kty":"EC","crv":"P-256","x":"\#(ecX)","y":"\#(ecY)"}"#
    static let ecPrivateJWK = #"{"kty":"EC","crv":"P-256","x":"\#(ecX)","y":"\#(ecY)","d":"\#(ecD)"}"#
    static let es256Header = "eyJhbGciOiJFUzI1NiJ9"
    static let es256Signature =
        "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    static let es256Token = "\(es256Header).\(payloadSegment).\(es256Signature)"

    // A.1: HS256 with a symmetric key, which authdeck must never accept.
    static let hs256Token = """
        eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9.\(payloadSegment).dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk
        """
    static let octJWK = """
        {"kty":"oct","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"}
        """

    // A 1024-bit RSA modulus, made with `openssl genrsa 1024` for these tests: below the 2048-bit floor.
    static let smallRSAJWK = """
        {"kty":"RSA","e":"AQAB","n":"3gZsuQQa9tdkFSp51W_yqTiXsnd8McPOhT7U26oUl24AWsMC5mQFU2Vh-BwXFWbOe3k7mNPRD_g\
        y83Va6LmHHKus-nwUGTopoqq7PSQq8OCB82BYpiq35t2HWHt08Lnkgy-Xo0Bg-fsgz7QGaf1dcMqHulyjT1nXSVl_uqQPaI0"}
        """

    /// `token` with the character at `index` of segment `segment` replaced by another base64url character.
    static func changing(_ token: String, segment: Int, at index: Int) -> String {
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map { Array($0) }
        let old = parts[segment][index]
        parts[segment][index] = old == "A" ? "B" : "A"
        return parts.map { String($0) }.joined(separator: ".")
    }

    /// `token` with a new header segment built from `json`.
    static func replacingHeader(_ token: String, with json: String) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        return ([Base64URL.encode(Array(json.utf8))] + parts.dropFirst().map(String.init)).joined(separator: ".")
    }
}
