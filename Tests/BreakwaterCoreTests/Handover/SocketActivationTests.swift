// SocketActivation: the environment systemd sets (sd_listen_fds(3)) read into which descriptor
// serves which listener, and every way it can be wrong.

import BreakwaterCore
import Testing

struct SocketActivationTests {
    private let pid: Int32 = 4242

    private func listeners(_ environment: [String: String]) throws -> InheritedListeners? {
        try SocketActivation.listeners(environment: environment, processID: pid)
    }

    @Test func noVariablesMeansNotActivated() throws {
        #expect(try listeners([:]) == nil)
        #expect(try listeners(["LISTEN_FDS": "2"]) == nil)
    }

    @Test func anotherProcessesVariablesAreNotOurs() throws {
        #expect(try listeners(["LISTEN_PID": "17", "LISTEN_FDS": "2"]) == nil)
    }

    @Test func zeroSocketsMeansNotActivated() throws {
        #expect(try listeners(["LISTEN_PID": "4242", "LISTEN_FDS": "0"]) == nil)
    }

    @Test func namedSocketsGoByName() throws {
        let got = try listeners(["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "admin:graphql"])
        #expect(got == InheritedListeners(graphql: [4], admin: [3]))
    }

    @Test func severalSocketsMayShareAName() throws {
        let got = try listeners(["LISTEN_PID": "4242", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "graphql:graphql:admin"])
        #expect(got == InheritedListeners(graphql: [3, 4], admin: [5]))
    }

    @Test func onlyAdminNamedLeavesGraphQLToBind() throws {
        let got = try listeners(["LISTEN_PID": "4242", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "admin"])
        #expect(got == InheritedListeners(graphql: [], admin: [3]))
    }

    @Test(arguments: [
        ([:], InheritedListeners(graphql: [3], admin: [4])),
        (["LISTEN_FDNAMES": "unknown:unknown"], InheritedListeners(graphql: [3], admin: [4])),
        (["LISTEN_FDNAMES": "breakwater.socket:breakwater.socket"], InheritedListeners(graphql: [3], admin: [4])),
    ])
    func unnamedSocketsGoInOrder(names: [String: String], expected: InheritedListeners) throws {
        let environment = ["LISTEN_PID": "4242", "LISTEN_FDS": "2"].merging(names) { $1 }
        #expect(try listeners(environment) == expected)
    }

    @Test func oneUnnamedSocketServesGraphQL() throws {
        #expect(try listeners(["LISTEN_PID": "4242", "LISTEN_FDS": "1"]) == InheritedListeners(graphql: [3]))
    }

    @Test(arguments: [
        (["LISTEN_PID": "x", "LISTEN_FDS": "1"], "LISTEN_PID is not a process id: \"x\""),
        (["LISTEN_PID": "4242", "LISTEN_FDS": "-1"], "LISTEN_FDS is not a count of sockets: \"-1\""),
        (["LISTEN_PID": "4242", "LISTEN_FDS": "two"], "LISTEN_FDS is not a count of sockets: \"two\""),
        (
            ["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "graphql"],
            "LISTEN_FDNAMES names 1 sockets but LISTEN_FDS passes 2"
        ),
        (
            ["LISTEN_PID": "4242", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "graphql:admin"],
            "LISTEN_FDNAMES names 2 sockets but LISTEN_FDS passes 3"
        ),
        (
            ["LISTEN_PID": "4242", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "graphql:metrics"],
            "socket 4 is named \"metrics\"; name each socket graphql or admin"
        ),
        (
            ["LISTEN_PID": "4242", "LISTEN_FDS": "3"],
            "3 unnamed sockets passed; name them graphql and admin (FileDescriptorName=) to say which is which"
        ),
    ])
    func unusableEnvironmentIsAnError(environment: [String: String], message: String) {
        #expect(throws: SocketActivation.Problem(description: message)) { try listeners(environment) }
    }
}
