/// What the device authorization endpoint answered (RFC 8628 3.2): what to show the user, and how to poll.
public struct DeviceAuthorization: Equatable, Sendable {
    public let deviceCode: String
    public let userCode: String
    public let verificationURI: String
    public let verificationURIComplete: String?
    public let expiresIn: Int
    public var interval: Int

    public init(
        deviceCode: String, userCode: String, verificationURI: String, verificationURIComplete: String?,
        expiresIn: Int, interval: Int
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }
}
