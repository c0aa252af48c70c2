// `breakwater advise --merge` (docs/FRESHNESS.md): suggested TTLs merged into the text of a
// configuration file. The file is edited as text where the YAML parser says its nodes stand, so
// its order, comments and layout stay: a rule for the same operation gets its `ttl` replaced (its
// other keys kept), rules for operations without one are added at the end of `cache.rules`, and
// every other line is left as it was. The evidence goes above each rule as `# advise:` comments,
// which the next merge replaces rather than piles up. The result is parsed back and checked.

import Yams

/// Merges suggested `cache.rules` TTLs into a configuration's text.
package enum CacheRulesMerge {
    /// A suggestion for one operation.
    package struct Rule: Sendable, Equatable {
        package var operation: String
        /// The TTL as configuration text; nil: no TTL to set (an existing rule only gets the comments).
        package var ttl: String?
        /// Comment lines, without the `# `.
        package var comments: [String]

        package init(operation: String, ttl: String?, comments: [String]) {
            (self.operation, self.ttl, self.comments) = (operation, ttl, comments)
        }
    }

    /// Why a file could not be merged into.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// The prefix of the comments a merge writes.
    static let commentPrefix = "# advise: "

    /// `yaml` (the text of the file `file`) with `rules` merged into `cache.rules`.
    package static func merged(yaml: String, file: String, rules: [Rule]) throws(Failure) -> String {
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml, .basic)
        } catch {
            throw Failure(description: "\(file): not YAML that can be merged into: \(error)")
        }
        var text = TextEdits(yaml)
        let suggested = rules.filter { $0.ttl != nil }
        guard let root, case .mapping(let top) = root else {
            guard root == nil || root?.isNull == true else {
                throw Failure(description: "\(file): the top level is not a mapping of sections")
            }
            text.append(["cache:", "  rules:"] + items(suggested, dash: 4))
            return try checked(text.result, file: file, rules: suggested)
        }
        guard case let (cacheKey, cache)? = top.first(where: { $0.key.string == "cache" }) else {
            text.append(["cache:", "  rules:"] + items(suggested, dash: 4))
            return try checked(text.result, file: file, rules: suggested)
        }
        let cacheLine = try line(of: cacheKey, file: file)
        guard case .mapping(let section) = cache else {
            guard cache.isNull, text.isBlankAfterKey(line: cacheLine) else {
                throw Failure(description: "\(file):\(cacheLine): cache is not a mapping")
            }
            text.insert(["  rules:"] + items(suggested, dash: 4), after: cacheLine)
            return try checked(text.result, file: file, rules: suggested)
        }
        // Yams reports a collection's style from its end event, which carries none: the text says it.
        guard !text.opensFlow(at: cache.mark) else {
            throw Failure(
                description: "\(file):\(cacheLine): cache is written as {...}; write it as a block to merge into")
        }
        guard case let (rulesKey, list)? = section.first(where: { $0.key.string == "rules" }) else {
            let indent = (cacheKeyColumn(section) ?? 3) - 1
            let last = lastLine(of: cache) ?? cacheLine
            text.insert(
                [String(repeating: " ", count: indent) + "rules:"] + items(suggested, dash: indent + 2), after: last)
            return try checked(text.result, file: file, rules: suggested)
        }
        let rulesLine = try line(of: rulesKey, file: file)
        let rulesIndent = (rulesKey.mark?.column ?? 3) - 1
        guard case .sequence(let sequence) = list else {
            guard list.isNull, text.isBlankAfterKey(line: rulesLine) else {
                throw Failure(description: "\(file):\(rulesLine): cache.rules is not a list")
            }
            text.insert(items(suggested, dash: rulesIndent + 2), after: rulesLine)
            return try checked(text.result, file: file, rules: suggested)
        }
        if text.opensFlow(at: list.mark) {
            guard sequence.isEmpty, let mark = list.mark, text.removeEmptyFlow(at: mark) else {
                throw Failure(
                    description: "\(file):\(rulesLine): cache.rules is written as [...]; write it as a block list to merge into")
            }
            text.insert(items(suggested, dash: rulesIndent + 2), after: rulesLine)
            return try checked(text.result, file: file, rules: suggested)
        }
        let dash = (list.mark?.column ?? rulesIndent + 3) - 1
        var handled: Set<String> = []
        for item in sequence {
            guard case .mapping(let rule) = item, let itemMark = item.mark,
                let operation = rule.first(where: { $0.key.string == "operation" })?.value.string,
                let suggestion = rules.first(where: { $0.operation == operation })
            else { continue }
            let itemLine = text.dashLine(from: itemMark.line, column: dash)
            let inFlow = text.opensFlow(at: itemMark)
            if !handled.contains(operation) {
                text.replaceComments(above: itemLine, with: comments(suggestion, indent: dash))
            }
            handled.insert(operation)
            guard let ttl = suggestion.ttl else { continue }
            if let value = rule.first(where: { $0.key.string == "ttl" })?.value, let mark = value.mark {
                text.replaceScalar(at: mark, with: ttl, inFlow: inFlow)
            } else if inFlow, let value = rule.first(where: { $0.key.string == "operation" })?.value,
                let mark = value.mark
            {
                text.appendAfterScalar(at: mark, ", ttl: \(ttl)")
            } else if let key = rule.first(where: { $0.key.string == "operation" })?.key, let mark = key.mark {
                text.insert([String(repeating: " ", count: mark.column - 1) + "ttl: \(ttl)"], after: mark.line)
            }
        }
        let added = suggested.filter { !handled.contains($0.operation) }
        if !added.isEmpty {
            text.insert(items(added, dash: dash), after: lastLine(of: list) ?? rulesLine)
        }
        return try checked(text.result, file: file, rules: suggested)
    }

    // MARK: Lines to write

    private static func items(_ rules: [Rule], dash: Int) -> [String] {
        let indent = String(repeating: " ", count: dash)
        return rules.flatMap { rule -> [String] in
            guard let ttl = rule.ttl else { return [] }
            return comments(rule, indent: dash) + [
                "\(indent)- operation: \(FreshnessAdvice.yamlName(rule.operation))", "\(indent)  ttl: \(ttl)",
            ]
        }
    }

    private static func comments(_ rule: Rule, indent: Int) -> [String] {
        rule.comments.map { String(repeating: " ", count: indent) + commentPrefix + $0 }
    }

    // MARK: Where nodes stand

    private static func line(of node: Node, file: String) throws(Failure) -> Int {
        guard let line = node.mark?.line else { throw Failure(description: "\(file): the parser gave no position") }
        return line
    }

    private static func cacheKeyColumn(_ section: Node.Mapping) -> Int? {
        section.first?.key.mark?.column
    }

    /// The last line on which `node` or anything in it starts.
    private static func lastLine(of node: Node) -> Int? {
        var last = node.mark?.line
        func visit(_ node: Node) {
            if let line = node.mark?.line { last = max(last ?? line, line) }
            switch node {
            case .mapping(let mapping):
                for pair in mapping {
                    visit(pair.key)
                    visit(pair.value)
                }
            case .sequence(let sequence): sequence.forEach(visit)
            default: break
            }
        }
        visit(node)
        return last
    }

    /// `text` parsed back: every suggested TTL must read back as the first rule of its operation.
    private static func checked(_ text: String, file: String, rules: [Rule]) throws(Failure) -> String {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text, .basic)
        } catch {
            throw Failure(description: "\(file): merging gave text that is not YAML (\(error)); merge by hand")
        }
        let list = root?["cache"]?["rules"]?.sequence.map(Array.init) ?? []
        for rule in rules {
            let first = list.first { $0["operation"]?.string == rule.operation }
            guard let ttl = first?["ttl"]?.string, ttl == rule.ttl else {
                throw Failure(
                    description: "\(file): the merged rule for \(rule.operation) does not read back; merge by hand")
            }
        }
        return text
    }
}

/// The file's lines and the edits to make to them, applied at once so that lines keep their
/// numbers while edits are planned.
private struct TextEdits {
    private var lines: [String]
    private let endsWithNewline: Bool
    /// Lines to insert before line index i (0-based); index `lines.count` is the end.
    private var insertions: [Int: [String]] = [:]
    private var removed: Set<Int> = []
    /// Per line index: (start, end, replacement) in Unicode scalars, applied right to left.
    private var replacements: [Int: [(start: Int, end: Int, text: String)]] = [:]

    init(_ text: String) {
        endsWithNewline = text.hasSuffix("\n")
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if endsWithNewline { lines.removeLast() }
        self.lines = lines
    }

    var result: String {
        var output: [String] = []
        for index in 0...lines.count {
            output += insertions[index] ?? []
            guard index < lines.count, !removed.contains(index) else { continue }
            var scalars = Array(lines[index].unicodeScalars)
            for edit in (replacements[index] ?? []).sorted(by: { $0.start > $1.start }) {
                scalars.replaceSubrange(edit.start..<edit.end, with: edit.text.unicodeScalars)
            }
            var line = ""
            line.unicodeScalars.append(contentsOf: scalars)
            output.append(line)
        }
        return output.joined(separator: "\n") + (endsWithNewline || insertions[lines.count] != nil ? "\n" : "")
    }

    /// Lines after the last one.
    mutating func append(_ new: [String]) {
        insertions[lines.count, default: []] += new
    }

    /// Lines after line `line` (1-based).
    mutating func insert(_ new: [String], after line: Int) {
        insertions[min(line, lines.count), default: []] += new
    }

    /// Whether line `line` (1-based) holds nothing after its key's colon but a comment.
    func isBlankAfterKey(line: Int) -> Bool {
        guard line >= 1, line <= lines.count, let colon = lines[line - 1].firstIndex(of: ":") else { return false }
        let rest = lines[line - 1][lines[line - 1].index(after: colon)...].drop { $0 == " " }
        return rest.isEmpty || rest.hasPrefix("#")
    }

    /// Whether a `{` or `[` stands at `mark`: a collection written in flow style.
    func opensFlow(at mark: Mark?) -> Bool {
        guard let mark, mark.line >= 1, mark.line <= lines.count else { return false }
        let scalars = Array(lines[mark.line - 1].unicodeScalars)
        let index = mark.column - 1
        return index < scalars.count && (scalars[index] == "{" || scalars[index] == "[")
    }

    /// Removes the `[]` at `mark`; false when it is not there.
    mutating func removeEmptyFlow(at mark: Mark) -> Bool {
        let index = mark.line - 1
        let scalars = Array(lines[index].unicodeScalars)
        let start = mark.column - 1
        guard start + 1 < scalars.count, scalars[start] == "[", scalars[start + 1] == "]" else { return false }
        replacements[index, default: []].append((start, start + 2, ""))
        return true
    }

    /// The line (1-based) of the `-` at `column` (0-based) that opens the list item starting at
    /// `line`: that line, or the nearest one above it (`-` alone on its line).
    func dashLine(from line: Int, column: Int) -> Int {
        var current = line
        while current >= 1 {
            let scalars = Array(lines[current - 1].unicodeScalars)
            if column < scalars.count, scalars[column] == "-" { return current }
            current -= 1
        }
        return line
    }

    /// Puts `comments` above line `line` (1-based) in place of the merge comments already there.
    mutating func replaceComments(above line: Int, with comments: [String]) {
        var index = line - 2
        while index >= 0, lines[index].drop(while: { $0 == " " }).hasPrefix(CacheRulesMerge.commentPrefix) {
            removed.insert(index)
            index -= 1
        }
        insertions[line - 1, default: []] += comments
    }

    /// Replaces the scalar starting at `mark` (its quotes included) with `text`, keeping what follows.
    mutating func replaceScalar(at mark: Mark, with text: String, inFlow: Bool) {
        let index = mark.line - 1
        let start = mark.column - 1
        replacements[index, default: []].append((start, scalarEnd(line: index, start: start, inFlow: inFlow), text))
    }

    /// Inserts `text` right after the scalar starting at `mark` (in a `{...}` mapping).
    mutating func appendAfterScalar(at mark: Mark, _ text: String) {
        let index = mark.line - 1
        let end = scalarEnd(line: index, start: mark.column - 1, inFlow: true)
        replacements[index, default: []].append((end, end, text))
    }

    /// Where the scalar starting at `start` ends: after its closing quote, or before a comment,
    /// the line's end or (in flow) a `,` `}` `]`, trailing spaces excluded.
    private func scalarEnd(line index: Int, start: Int, inFlow: Bool) -> Int {
        let scalars = Array(lines[index].unicodeScalars)
        guard start < scalars.count else { return start }
        if scalars[start] == "\"" || scalars[start] == "'" {
            var position = start + 1
            while position < scalars.count {
                if scalars[position] == "\\" && scalars[start] == "\"" {
                    position += 2
                    continue
                }
                if scalars[position] == scalars[start] { return position + 1 }
                position += 1
            }
            return scalars.count
        }
        var end = start
        while end < scalars.count {
            let scalar = scalars[end]
            if scalar == "#" && end > start && scalars[end - 1] == " " { break }
            if inFlow && (scalar == "," || scalar == "}" || scalar == "]") { break }
            end += 1
        }
        while end > start && (scalars[end - 1] == " " || scalars[end - 1] == "\t") { end -= 1 }
        return end
    }
}
