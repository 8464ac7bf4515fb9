import Foundation
import SessionStorage

/// The ExecCredential object kubectl's exec plugins print (client.authentication.k8s.io): the version kubectl
/// names in `KUBERNETES_EXEC_INFO`, else v1beta1, with the token and its expiry so kubectl caches it until then.
enum ExecCredential {
    static let group = "client.authentication.k8s.io"
    static let versions: Set<String> = ["v1", "v1beta1", "v1alpha1"]

    /// The apiVersion to answer with; a value kubectl would never send is an error, not a silent fallback.
    static func apiVersion(environment: [String: String]) throws(CommandFailure) -> String {
        guard let info = environment["KUBERNETES_EXEC_INFO"], !info.isEmpty else { return group + "/v1beta1" }
        guard let object = try? JSONSerialization.jsonObject(with: Data(info.utf8)) as? [String: Any] else {
            throw CommandFailure(.failed, "KUBERNETES_EXEC_INFO is not a JSON object")
        }
        guard let version = object["apiVersion"] as? String else { return group + "/v1beta1" }
        let parts = version.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == group, versions.contains(String(parts[1])) else {
            throw CommandFailure(
                .failed,
                "KUBERNETES_EXEC_INFO asks for apiVersion '\(version)'; authdeck writes "
                    + "\(group)/v1, v1beta1 and v1alpha1")
        }
        return version
    }

    /// The object, one line.
    static func json(_ issued: IssuedToken, apiVersion: String) -> String {
        var status = "\"token\":" + SessionJSON.quoted(issued.token)
        if let expiresAt = issued.expiresAt {
            status += ",\"expirationTimestamp\":" + SessionJSON.quoted(SessionJSON.iso8601(expiresAt))
        }
        return "{\"apiVersion\":" + SessionJSON.quoted(apiVersion) + ",\"kind\":\"ExecCredential\",\"status\":{"
            + status + "}}\n"
    }
}
