// deploy/config.yaml tells operators which settings need a restart: a comment ending in
// "Restart." on the key's line, or in the comment block right above it (a commented-out key
// such as `# tls:` included). Those marks must be exactly the keys Configuration+Reload.swift
// keeps at their running value on SIGHUP, or an operator reloads and waits for nothing (or
// restarts for nothing).

import Foundation
import Testing

@testable import BreakwaterCore

/// A key of the file (written or commented out) and whether its comment marks it "Restart.".
private struct MarkedKey: Equatable, CustomStringConvertible {
    let name: String
    let line: Int
    let marked: Bool
    var description: String { "\(name) (line \(line))\(marked ? " marked Restart." : "")" }
}

/// The keys of a YAML file with their marks. List items (`- operation: ...`) are skipped: their
/// keys are not settings of their own. A comment block followed by a blank line marks nothing.
private func markedKeys(in text: String) -> (keys: [MarkedKey], strayMarks: [Int]) {
    let marker = "Restart."
    var keys: [MarkedKey] = []
    var strayMarks: [Int] = []
    var parents: [(indent: Int, name: String)] = []
    var pendingMark: Int?  // the line of a comment block's mark, waiting for its key
    var listIndent: Int?
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let number = index + 1
        let line = String(raw)
        let indent = line.prefix { $0 == " " }.count
        var content = line.dropFirst(indent)
        if content.isEmpty {
            if let mark = pendingMark { strayMarks.append(mark) }
            pendingMark = nil
            continue
        }
        var commentedOut = false
        var keyIndent = indent
        if content.hasPrefix("#") {
            // A commented-out key (`# tls:`, `#   cert: ...`) counts as a key at the indent it shows.
            let afterHash = content.dropFirst()
            let spaces = afterHash.prefix { $0 == " " }.count
            let rest = afterHash.dropFirst(spaces)
            if spaces >= 1, rest.range(of: #"^[a-z_][a-z0-9_]*:( |$)"#, options: .regularExpression) != nil {
                commentedOut = true
                keyIndent = indent + spaces - 1
                content = rest
            } else {
                if content.contains(marker) {
                    if let mark = pendingMark { strayMarks.append(mark) }
                    pendingMark = number
                }
                continue
            }
        }
        if let list = listIndent {
            if keyIndent > list || (keyIndent == list && content.hasPrefix("- ")) { continue }
            listIndent = nil
        }
        if content.hasPrefix("- ") {
            listIndent = keyIndent
            continue
        }
        guard let colon = content.firstIndex(of: ":") else { continue }
        let name = String(content[..<colon])
        while let last = parents.last, last.indent >= keyIndent { parents.removeLast() }
        let path = (parents.map(\.name) + [name]).joined(separator: ".")
        parents.append((keyIndent, name))
        // A commented-out key's own comment is its value's text; only written keys carry inline marks.
        let inlineMark = !commentedOut && content[colon...].contains("#") && content[colon...].contains(marker)
        keys.append(MarkedKey(name: path, line: number, marked: inlineMark || pendingMark != nil))
        pendingMark = nil
    }
    if let mark = pendingMark { strayMarks.append(mark) }
    return (keys, strayMarks)
}

@Suite struct DeployConfigurationCommentsTests {
    private static let file = repositoryRoot + "/deploy/config.yaml"

    @Test func restartMarksAreExactlyTheKeysThatNeedARestart() throws {
        let (keys, strayMarks) = markedKeys(in: try String(contentsOfFile: Self.file, encoding: .utf8))
        #expect(strayMarks.isEmpty, "\"Restart.\" marks no key at lines \(strayMarks)")
        let restartOnly = Set(Configuration.restartOnlyKeyNames)
        // Sub-keys of a restart-only key (server.tls.cert) follow it and need no mark of their own.
        let judged = keys.filter { key in !restartOnly.contains { key.name.hasPrefix($0 + ".") } }
        let wronglyMarked = judged.filter { $0.marked && !restartOnly.contains($0.name) }
        let unmarked = judged.filter { !$0.marked && restartOnly.contains($0.name) }
        #expect(wronglyMarked.isEmpty, "marked Restart. but reloaded by SIGHUP: \(wronglyMarked)")
        #expect(unmarked.isEmpty, "need a restart but are not marked Restart.: \(unmarked)")
        // The reading found the keys at all (a broken parser would pass the checks above vacuously).
        #expect(judged.contains { $0.name == "server.listen" && $0.marked })
        #expect(judged.contains { $0.name == "admin.token" && !$0.marked })
        #expect(judged.contains { $0.name == "server.tls" && $0.marked })
    }

    @Test func theReaderFollowsInlineBlockAndCommentedOutMarks() {
        let text = """
            # Header mentioning Restart. is not a key's.

            server:
              listen: x      # Restart.
              # Above the key. Restart.
              threads: 0
              idle_timeout: 1s
              # tls is commented out. Restart.
              # tls:
              #   cert: a
            cache:
              rules:
                - operation: A   # Restart.
                  ttl: 1s
              max_bytes: 1
            """
        let (keys, strayMarks) = markedKeys(in: text)
        #expect(strayMarks == [1])
        #expect(
            keys.map(\.description) == [
                "server (line 3)", "server.listen (line 4) marked Restart.", "server.threads (line 6) marked Restart.",
                "server.idle_timeout (line 7)", "server.tls (line 9) marked Restart.", "server.tls.cert (line 10)",
                "cache (line 11)", "cache.rules (line 12)", "cache.max_bytes (line 15)",
            ])
    }
}
