// `breakwater hash`: the APQ hash of a GraphQL document.

import ArgumentParser
import BreakwaterCore
import BreakwaterServer
import Foundation

struct Hash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the APQ hash (lower-case hex SHA-256) of a GraphQL document.")

    @Argument(help: "File holding the document; standard input when absent.")
    var file: String?

    @Flag(help: "Hash the bytes unchanged (by default trailing newlines are removed first).")
    var exact = false

    func run() throws {
        var bytes: [UInt8]
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw ValidationError("cannot read \(file)")
            }
            bytes = Array(data)
        } else {
            bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
        }
        if !exact {
            while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        }
        print(OpenSSLSHA256().sha256(bytes).hex)
    }
}
