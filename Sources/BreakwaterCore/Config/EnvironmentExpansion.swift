// `${NAME}` and `${NAME:-default}` in config values (README "Configuration"): secrets and per-pod settings
// come from the environment in containers. An unset variable without a default is an error.

/// Replaces environment references in one config value.
package struct EnvironmentExpansion: Sendable {
    /// The variables references are resolved against.
    package let environment: [String: String]

    package init(environment: [String: String]) {
        self.environment = environment
    }

    /// Why a value could not be expanded; `description` is the message shown after `file:line:`.
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case unset(String)
        case malformed(String)

        package var description: String {
            switch self {
            case .unset(let name):
                "environment variable \(name) is not set (write ${\(name):-default} to give a default)"
            case .malformed(let reference):
                "\"\(reference)\" is not an environment reference (use ${NAME} or ${NAME:-default})"
            }
        }
    }

    /// `text` with every `${...}` replaced; a `$` not followed by `{` stays as it is.
    package func expand(_ text: String) -> Result<String, Failure> {
        guard text.contains("${") else { return .success(text) }
        var output = ""
        var rest = Substring(text)
        while let dollar = rest.firstRange(of: "${") {
            output += rest[..<dollar.lowerBound]
            guard let close = rest[dollar.upperBound...].firstIndex(of: "}") else {
                return .failure(.malformed(String(rest[dollar.lowerBound...])))
            }
            let body = rest[dollar.upperBound..<close]
            let reference = String(rest[dollar.lowerBound...close])
            let name: Substring
            let fallback: Substring?
            if let separator = body.firstRange(of: ":-") {
                name = body[..<separator.lowerBound]
                fallback = body[separator.upperBound...]
            } else {
                name = body
                fallback = nil
            }
            guard name.isIdentifierName else { return .failure(.malformed(reference)) }
            // `:-` as in the shell: an empty variable takes the default too.
            if let value = environment[String(name)], !(value.isEmpty && fallback != nil) {
                output += value
            } else if let fallback {
                output += fallback
            } else {
                return .failure(.unset(String(name)))
            }
            rest = rest[rest.index(after: close)...]
        }
        return .success(output + rest)
    }
}
