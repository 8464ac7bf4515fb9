/// One end of a TCP connection: an address and a port. An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is kept
/// as the IPv4 address it maps, so the two spellings of one end compare equal.
public struct TCPEndpoint: Hashable, Sendable {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    public let address: [UInt8]
    public let port: UInt16

    /// Nil unless `address` holds 4 or 16 bytes.
    public init?(address: [UInt8], port: UInt16) {
        switch address.count {
        case 4:
            self.address = address
        case 16:
            let mapped = address.prefix(12).elementsEqual(Array(repeating: 0, count: 10) + [0xFF, 0xFF])
            self.address = mapped ? Array(address.suffix(4)) : address
        default:
            return nil
        }
        self.port = port
    }
}
