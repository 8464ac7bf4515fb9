import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Another program's listener on a 127.0.0.1 port, for the tests of a port already in use (0: any free one).
public final class PortHolder: @unchecked Sendable {
    private var descriptor: Int32
    public let port: UInt16

    public init(port requested: UInt16) throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requested.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socketDescriptor, 4) == 0 else {
            Glibc.close(socketDescriptor)
            throw PortTaken(port: requested)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        descriptor = socketDescriptor
        port = UInt16(bigEndian: actual.sin_port)
    }

    public func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { close() }

    /// A 127.0.0.1 port no one listened on a moment ago (bound to port 0, then let go).
    public static func freePort() throws -> UInt16 {
        let holder = try PortHolder(port: 0)
        defer { holder.close() }
        return holder.port
    }
}

/// The port could not be bound: another program holds it.
public struct PortTaken: Error, CustomStringConvertible {
    public let port: UInt16
    public var description: String { "cannot hold port \(port)" }
}
