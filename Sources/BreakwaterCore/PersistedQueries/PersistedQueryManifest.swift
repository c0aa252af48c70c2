// The persisted-query manifest of `persisted_queries.manifest` (README "Configuration" and "GraphQL over HTTP rules"): the
// documents a build of the client app declares up front. They are always known to the registry,
// never evicted, and in `safelist` mode they are the only queries the origin ever sees.
//
// Two formats are read, told apart by their shape:
// - Apollo's manifest: {"format":"apollo-persisted-query-manifest","version":1,
//   "operations":[{"id":"<sha256 hex>","name":"...","type":"query","body":"<document>"}]}
// - Relay's map: {"<id>": "<document>", ...}, ids of any form (Relay's persisted-query map).
//
// Read once at startup, so Foundation's JSON parser is fine here.

import Foundation

/// The documents of an Apollo persisted-query manifest or a Relay map, by id and by SHA-256.
package struct PersistedQueryManifest: Sendable {
    package enum Format: Sendable, Equatable {
        case apollo
        case relay
    }

    /// The file the manifest was read from, for messages.
    package let file: String
    package let format: Format
    /// Every operation as declared: Apollo's operation order, Relay's ids sorted.
    package let entries: [(id: String, document: String)]
    /// The SHA-256 of every document's text: a plain query is safelisted when its hash is here.
    package let digests: Set<SHA256Digest>
    private let documentsByID: [String: String]
    /// By the SHA-256 of the text and, for Apollo, by the id, in case a tool chose ids of its own.
    private let documentsByDigest: [SHA256Digest: String]

    /// Reads the manifest at `path`; `hasher` computes the digests of the documents.
    package init(path: String, hasher: any SHA256Hashing) throws(PersistedQueryManifestError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PersistedQueryManifestError(file: path, problem: .unreadable)
        }
        try self.init(json: Array(data), file: path, hasher: hasher)
    }

    /// Parses manifest JSON; `file` names the source in errors.
    package init(json: [UInt8], file: String, hasher: any SHA256Hashing) throws(PersistedQueryManifestError) {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw PersistedQueryManifestError(file: file, problem: .notJSON(Self.reason(error)))
        }
        guard let object = root as? [String: Any] else {
            throw PersistedQueryManifestError(file: file, problem: .notAnObject)
        }
        // A Relay map has no reason to hold these keys, and a broken Apollo manifest is better
        // reported as such than as a Relay map with strange ids.
        let isApollo = object["format"] != nil || object["operations"] != nil
        let entries =
            isApollo ? try Self.apolloEntries(object, file: file) : try Self.relayEntries(object, file: file)

        var documentsByID: [String: String] = [:]
        var documentsByDigest: [SHA256Digest: String] = [:]
        var digests = Set<SHA256Digest>()
        var unique: [(id: String, document: String)] = []
        for entry in entries {
            if let known = documentsByID[entry.id] {
                guard known == entry.document else {
                    throw PersistedQueryManifestError(file: file, problem: .duplicateID(entry.id))
                }
                continue
            }
            documentsByID[entry.id] = entry.document
            unique.append(entry)
            let digest = hasher.sha256(entry.document)
            digests.insert(digest)
            documentsByDigest[digest] = entry.document
        }
        if isApollo {
            for entry in unique {
                guard let digest = SHA256Digest(hex: entry.id), documentsByDigest[digest] == nil else { continue }
                documentsByDigest[digest] = entry.document
            }
        }
        self.file = file
        self.format = isApollo ? .apollo : .relay
        self.entries = unique
        self.digests = digests
        self.documentsByID = documentsByID
        self.documentsByDigest = documentsByDigest
    }

    /// The document of `id` as it appears in the manifest: Apollo's hex id or a Relay id.
    package func document(for id: String) -> String? {
        documentsByID[id]
    }

    /// The document whose text hashes to `digest` (or, in an Apollo manifest, whose id is it).
    package func document(for digest: SHA256Digest) -> String? {
        documentsByDigest[digest]
    }

    // MARK: - Formats

    private static func apolloEntries(
        _ object: [String: Any],
        file: String
    ) throws(PersistedQueryManifestError) -> [(id: String, document: String)] {
        let format = object["format"] as? String
        guard format == "apollo-persisted-query-manifest" else {
            let found = format.map { "\"\($0)\"" } ?? object["format"].map { "\($0)" } ?? "missing"
            throw PersistedQueryManifestError(file: file, problem: .unknownFormat(found))
        }
        guard let version = object["version"] as? Int, version == 1 else {
            let found = object["version"].map { "\($0)" } ?? "missing"
            throw PersistedQueryManifestError(file: file, problem: .unsupportedVersion(found))
        }
        guard let operations = object["operations"] as? [Any] else {
            throw PersistedQueryManifestError(file: file, problem: .operationsNotAnArray)
        }
        var entries: [(id: String, document: String)] = []
        entries.reserveCapacity(operations.count)
        for (index, element) in operations.enumerated() {
            guard let operation = element as? [String: Any] else {
                throw PersistedQueryManifestError(file: file, problem: .operationNotAnObject(index: index))
            }
            guard let body = operation["body"] as? String else {
                throw PersistedQueryManifestError(file: file, problem: .operationWithoutBody(index: index))
            }
            guard let id = operation["id"] as? String, id.utf8.count == 64, SHA256Digest(hex: id) != nil else {
                let found = operation["id"].map { "\($0)" } ?? ""
                throw PersistedQueryManifestError(file: file, problem: .invalidApolloID(index: index, id: found))
            }
            if let type = operation["type"] {
                guard let type = type as? String, ["query", "mutation", "subscription"].contains(type) else {
                    throw PersistedQueryManifestError(
                        file: file,
                        problem: .unknownOperationType(index: index, type: "\(type)")
                    )
                }
            }
            entries.append((id, body))
        }
        return entries
    }

    private static func relayEntries(
        _ object: [String: Any],
        file: String
    ) throws(PersistedQueryManifestError) -> [(id: String, document: String)] {
        // JSONSerialization forgets member order; sorting keeps `entries` the same on every load.
        var entries: [(id: String, document: String)] = []
        entries.reserveCapacity(object.count)
        for id in object.keys.sorted() {
            guard let document = object[id] as? String else {
                throw PersistedQueryManifestError(file: file, problem: .relayDocumentNotAString(id: id))
            }
            entries.append((id, document))
        }
        return entries
    }

    /// Foundation's parse error, without the Cocoa error boilerplate around it where it says more.
    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        return (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? nsError.localizedDescription
    }
}
