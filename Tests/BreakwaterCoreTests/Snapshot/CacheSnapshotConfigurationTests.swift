// `cache.snapshot` in config.yaml: off by default, a relative path resolved against the config
// file's folder, and a path whose folder is missing reported at its line by `validate` and `run`.

import BreakwaterCore
import Testing

struct CacheSnapshotConfigurationTests {
    @Test func offByDefaultAndRelativeToTheConfigFilesFolder() throws {
        let none = try ConfigurationLoader.parse(
            yaml: "cache:\n  max_bytes: 1MiB\n", file: "c.yaml", baseDirectory: "/etc/bw")
        #expect(none.cache.snapshot == "")
        let relative = try ConfigurationLoader.parse(
            yaml: "cache:\n  snapshot: data/cache.snapshot\n", file: "c.yaml", baseDirectory: "/etc/bw")
        #expect(relative.cache.snapshot == "/etc/bw/data/cache.snapshot")
        let absolute = try ConfigurationLoader.parse(
            yaml: "cache:\n  snapshot: /var/lib/bw/cache.snapshot\n", file: "c.yaml", baseDirectory: "/etc/bw")
        #expect(absolute.cache.snapshot == "/var/lib/bw/cache.snapshot")
    }

    @Test func aMissingFolderIsReportedAtTheKeysLine() throws {
        let loaded = try ConfigurationLoader.read(
            yaml: "persisted_queries:\n  store: \"\"\ncache:\n  snapshot: /nonexistent-breakwater/cache.snapshot\n",
            file: "c.yaml",
            baseDirectory: "/")
        let problems = loaded.configuration.writtenFileProblems(in: loaded.source)
        #expect(problems.map(\.line) == [4])
        #expect(problems.first?.message.contains("does not exist") == true)
    }

    @Test func aChangeIsNotRestartOnly() {
        #expect(!Configuration.restartOnlyKeyNames.contains("cache.snapshot"))
    }
}
