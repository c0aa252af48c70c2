// Building APQ requests the way Apollo Client, iOS and Kotlin send them.

import BreakwaterCore
import BreakwaterServer
import BreakwaterTesting
import Foundation

enum APQ {
    /// A document as the origin received it, without the selections the proxy adds under reserved
    /// aliases when it knows the origin's schema (`origin.schema: auto`): the client's own text.
    static func withoutReservedSelections(_ upstream: String?) -> String? {
        upstream?.replacingOccurrences(of: #"( __bw_\w+: \w+)+ "#, with: "", options: .regularExpression)
    }

    /// The lower-case hex SHA-256 of a document, as clients compute it.
    static func hash(_ document: String) -> String { OpenSSLSHA256().sha256(document).hex }

    /// `{"persistedQuery":{"version":1,"sha256Hash":"..."}}`.
    static func extensions(_ hash: String, version: String = "1") -> String {
        #"{"persistedQuery":{"version":\#(version),"sha256Hash":"\#(hash)"}}"#
    }

    /// Apollo Client's hashed GET (`useGETForHashedQueries`): operationName, variables, extensions.
    static func hashedGET(_ document: String, operationName: String?, variables: String? = nil, path: String = "/graphql")
        -> String
    {
        var pairs: [(String, String)] = []
        if let operationName { pairs.append(("operationName", operationName)) }
        if let variables { pairs.append(("variables", variables)) }
        pairs.append(("extensions", extensions(hash(document))))
        return path + "?" + URLEncoding.queryString(pairs)
    }

    /// The registering POST: query, operationName, variables and the hash.
    static func registeringPOST(_ document: String, operationName: String?, variables: String? = nil) -> String {
        var members = [#""query":\#(jsonString(document))"#]
        if let operationName { members.append(#""operationName":\#(jsonString(operationName))"#) }
        if let variables { members.append(#""variables":\#(variables)"#) }
        members.append(#""extensions":\#(extensions(hash(document)))"#)
        return "{" + members.joined(separator: ",") + "}"
    }

    /// The hash-only POST (Apollo Kotlin and iOS default).
    static func hashOnlyPOST(_ document: String, operationName: String?, variables: String? = nil) -> String {
        var members: [String] = []
        if let operationName { members.append(#""operationName":\#(jsonString(operationName))"#) }
        if let variables { members.append(#""variables":\#(variables)"#) }
        members.append(#""extensions":\#(extensions(hash(document)))"#)
        return "{" + members.joined(separator: ",") + "}"
    }

    static func jsonString(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes]), as: UTF8.self)
            .dropFirst().dropLast().description
    }
}

extension HTTPClientResponse {
    /// `data` of a GraphQL answer.
    var data: [String: Any]? { jsonObject?["data"] as? [String: Any] }
}
