// The per-request header lines of an answer from the cache, as values an engine writes directly:
// the cache outcome, the age in seconds and three texts (whose bytes the answer's storage keeps
// alive). Built as a header list, the same lines cost an array, five fields of two Strings each,
// and a retain and release of every heap String at each step (README "The response cache" lists
// the lines).

/// `X-Cache`, `Age`, `Cache-Control`, `Vary`, then (after the answer's listed fields, CORS)
/// `Content-Type`: what every 200 from the cache carries before its stored lines.
package struct CacheAnswerLines: Sendable {
    package var cache: XCache
    /// Whole seconds since the entry was stored; nil: no `Age` line.
    package var age: Int64?
    package var cacheControl: StableText
    package var vary: StableText?
    package var contentType: StableText

    /// The lines written before the answer's listed fields.
    package var leadingFields: [HTTPHeaderField] {
        var fields = [HTTPHeaderField(name: "X-Cache", value: cache.headerValue)]
        if let age { fields.append(HTTPHeaderField(name: "Age", value: String(age))) }
        fields.append(HTTPHeaderField(name: "Cache-Control", value: cacheControl.string))
        if let vary { fields.append(HTTPHeaderField(name: "Vary", value: vary.string)) }
        return fields
    }

    /// The line written after them.
    package var trailingFields: [HTTPHeaderField] {
        [HTTPHeaderField(name: "Content-Type", value: contentType.string)]
    }

    /// The first value of `name` among these lines, or nil.
    package func value(of name: String) -> String? {
        (leadingFields + trailingFields).first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// At most the bytes the lines take as `Name: value\r\n`.
    @inline(__always)
    package var byteBound: Int {
        // "X-Cache: BYPASS\r\n" 17, "Age: " + 20 digits + CRLF 27, the three names with ": " and
        // CRLF 17 + 8 + 16.
        17 + 27 + 17 + 8 + 16 + cacheControl.count + (vary?.count ?? 0) + contentType.count
    }
}
