/// What Portal's sign-in says about the client a session belongs to besides its token: its `clientId` and whether
/// it is account-abstracted. Kept with the session's secrets, as the Portal SDK hands both to its host.
public struct PortalClientInfo: Sendable, Equatable, Codable {
    public var clientID: String?
    public var isAccountAbstracted: Bool?

    public init(clientID: String?, isAccountAbstracted: Bool?) {
        self.clientID = clientID
        self.isAccountAbstracted = isAccountAbstracted
    }
}
