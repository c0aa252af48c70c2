// The `Vary` value of answers from the cache (README "The response cache"), held once in both the
// forms answers need: a String for a listed header field, and a never-freed text for the lines
// of a 200 from the cache (`CacheAnswerLines`), so the two can never disagree.

/// `Vary` for answers from the cache: its text, and the text's stable copy when it has one.
package struct ResponseVary: Sendable, Equatable, ExpressibleByStringLiteral {
    package let text: String
    /// nil when no stable copy could be made (`StableTextTable`): answers then list the field.
    package let stable: StableText?

    /// `text` with its stable copy from the process's table (made once per configuration).
    package init(_ text: String) {
        self.init(text, stable: StableText.interned(text))
    }

    package init(stringLiteral text: String) {
        self.init(text)
    }

    private init(_ text: String, stable: StableText?) {
        self.text = text
        self.stable = stable
    }

    /// `text` without a stable copy: answers carrying it list their fields.
    package static func listed(_ text: String) -> ResponseVary {
        ResponseVary(text, stable: nil)
    }
}
