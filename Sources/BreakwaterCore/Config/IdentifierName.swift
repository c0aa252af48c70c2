// The one name rule shared by environment variables and GraphQL names in config.yaml.

extension StringProtocol {
    /// `[_A-Za-z][_0-9A-Za-z]*`: a POSIX environment variable name, and a GraphQL name.
    package var isIdentifierName: Bool {
        guard let first = first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}
