// swift-tools-version: 6.1
// Breakwater: a caching edge proxy for GraphQL, on libevent and OpenSSL.
import PackageDescription

// MARK: - Shared settings

// Each function in a section of its own, so that the linker can order them (below) and drop the
// unused ones one by one.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-Xfrontend", "-function-sections"]),
]

// The request path's targets: in release builds, no dynamic exclusivity checks (about
// 4 % of a cache hit's instructions under callgrind); debug builds and the tests keep them.
let requestPathSettings: [SwiftSetting] = swiftSettings + [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
]

// MARK: - Memory: the Swift runtime and Foundation linked into the binary
// Linked statically, the runtime and Foundation bring only the code the proxy uses, without the
// shared libraries' own relocations, GOT and PLT: the empty process is about 5 MiB smaller. The
// modules were compiled against the shared Foundation, whose link entries do not name
// CoreFoundation and ICU: they are named here.
//
// The code the proxy runs, together (the empty process): linked by lld, the
// functions named in Sources/breakwater/link.order (the ones a run executes, `make link-order`)
// come first in .text, so that the pages the process maps are mostly code it runs, not code
// around it; `pack-relative-relocs` stores the position-independent binary's relocations in
// about 16 KiB instead of 2 MiB that every start read (glibc 2.36, Debian 12, reads them); and
// the binary exports no symbols, which no library looks up, so the dynamic linker's searches do
// not page in its symbol tables. Together about 8 MiB less resident in the empty process
// (BENCHMARKS.md, "Memory").
let linkOrder = Context.packageDirectory + "/Sources/breakwater/link.order"

// The C libraries linked into the binary too (the empty process): the directory
// holds links to the Debian packages' static archives (libssl-dev, libevent-dev, libhiredis-dev,
// zlib1g-dev, libnghttp2-dev, libstdc++-12-dev) and is searched first, so `-lssl` and the others find the archive
// before the shared library. The binary then holds only the parts it calls, and the process does
// not map each library's symbol and relocation tables: 2.6 MiB less resident (BENCHMARKS.md,
// "Memory"). glibc (libc, libm) stays shared.
let staticLibraries = Context.packageDirectory + "/Libraries/static"
let breakwaterLinkerSettings: [LinkerSetting] = [
    .unsafeFlags([
        "-L", staticLibraries,
        "-static-stdlib", "-lCoreFoundation", "-l_FoundationICU", "-l_FoundationCShims",
        "-l_FoundationCollections",
        "-use-ld=lld",
        "-Xlinker", "--symbol-ordering-file=\(linkOrder)", "-Xlinker", "--no-warn-symbol-ordering",
        "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
        "-Xlinker", "--no-export-dynamic",
    ]),
]

// MARK: - Package

let package = Package(
    name: "Breakwater",
    products: [
        .executable(name: "breakwater", targets: ["breakwater"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        .package(url: "https://github.com/GraphQLSwift/Graphiti", from: "3.1.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // MARK: C libraries (module map + shim header only)
        // Found in the standard paths (Debian's packages install there), without pkg-config: its
        // `-L/usr/lib/x86_64-linux-gnu` would come before `staticLibraries` in the link and make
        // the binary take the shared libraries, and its `-l` flags would load them besides.
        .systemLibrary(
            name: "CLibevent",
            providers: [.apt(["libevent-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            providers: [.apt(["libssl-dev"])]
        ),

        // MARK: Redis shared tier: hiredis 0.14 with its libevent adapter (docs/FLEET.md)
        .systemLibrary(
            name: "CHiredis",
            providers: [.apt(["libhiredis-dev"])]
        ),

        // MARK: gzip content coding (README "Configuration", `server.compression`): zlib, for the HTTP engine
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),

        // MARK: HTTP/2 on client connections (docs/reference/client-protocol.md, "HTTP/2"): nghttp2's session
        .systemLibrary(
            name: "CNghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),

        // MARK: Pure Swift core: no C imports, no sockets, no clocks of its own
        .target(
            name: "BreakwaterCore",
            dependencies: [
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: requestPathSettings
        ),

        // MARK: HTTP/1.1 engine: pure, incremental, zero-copy parsers (no C imports)
        .target(
            name: "BreakwaterHTTP1",
            dependencies: [],
            swiftSettings: requestPathSettings
        ),
        .testTarget(
            name: "BreakwaterHTTP1Tests",
            dependencies: ["BreakwaterHTTP1"],
            swiftSettings: swiftSettings
        ),

        // MARK: HTTP/2 rules: floods, stream deadlines and head limits, pure (nghttp2 frames the bytes)
        .target(
            name: "BreakwaterHTTP2",
            dependencies: [],
            swiftSettings: requestPathSettings
        ),
        .testTarget(
            name: "BreakwaterHTTP2Tests",
            dependencies: ["BreakwaterHTTP2"],
            swiftSettings: swiftSettings
        ),

        // The request parser's verdicts as JSON lines, for the differential test against llhttp.
        .executableTarget(
            name: "http1-verdict",
            dependencies: ["BreakwaterHTTP1"],
            path: "Fuzz/HTTP1Differential/Verdict",
            swiftSettings: swiftSettings
        ),

        // MARK: I/O: the only target that imports libevent and OpenSSL
        .target(
            name: "BreakwaterServer",
            dependencies: [
                "BreakwaterCore", "BreakwaterHTTP1", "BreakwaterHTTP2", "CLibevent", "COpenSSL", "CHiredis", "CZlib",
                "CNghttp2",
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: requestPathSettings
        ),

        // MARK: Process wiring: signals, reload, drain, logging backend (the HTTP layer stays only HTTP)
        .target(
            name: "BreakwaterService",
            dependencies: [
                "BreakwaterCore", "BreakwaterServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Demo origin (README "Running it in front of your origin", `breakwater demo`): pure handler, served through BreakwaterServer by main
        .target(
            name: "BreakwaterDemoOrigin",
            dependencies: [
                "BreakwaterCore",
                .product(name: "Graphiti", package: "Graphiti"),
                .product(name: "GraphQL", package: "GraphQL"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Executable
        .executableTarget(
            name: "breakwater",
            dependencies: [
                "BreakwaterCore", "BreakwaterServer", "BreakwaterService", "BreakwaterDemoOrigin",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["link.order"],
            swiftSettings: swiftSettings,
            linkerSettings: breakwaterLinkerSettings
        ),

        // MARK: Testing support: process harness and a raw HTTP/1.1 client
        .target(
            name: "BreakwaterTesting",
            dependencies: [],
            swiftSettings: swiftSettings
        ),

        // MARK: Fixtures of the in-process tests: a SHA-256 in Swift, a seeded generator, entries
        .target(
            name: "BreakwaterFixtures",
            dependencies: ["BreakwaterCore"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        // The core's rules in-process: no C library, no server (digests are passed in).
        .testTarget(
            name: "BreakwaterCoreTests",
            dependencies: ["BreakwaterCore", "BreakwaterDemoOrigin", "BreakwaterFixtures"],
            swiftSettings: swiftSettings
        ),
        // The server's in-process parts: OpenSSL's digests, gzip, the access log, header text.
        .testTarget(
            name: "BreakwaterServerTests",
            dependencies: ["BreakwaterCore", "BreakwaterHTTP2", "BreakwaterServer", "BreakwaterFixtures", "CNghttp2"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BreakwaterIntegrationTests",
            dependencies: ["BreakwaterTesting", "BreakwaterServer"],
            swiftSettings: swiftSettings
        ),

        // MARK: Micro-benchmarks of the core, no sockets (`make microbench`)
        .executableTarget(
            name: "BreakwaterBenchmarks",
            dependencies: [
                "BreakwaterCore", "BreakwaterServer",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/BreakwaterBenchmarks",
            swiftSettings: swiftSettings,
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)

// MARK: - Sanitizer and fuzzing shapes (RELIABILITY.md)
// `BREAKWATER_UNIT_ONLY=1` keeps only what the unit tests need (BreakwaterCore, BreakwaterHTTP1,
// BreakwaterServer, the demo origin that some core tests use, the in-process tests'
// fixtures, the C module maps, the three unit-test targets): `make test-asan` / `make test-tsan` build neither the CLI, the
// service, the live tests nor the benchmarks (and their plugin) under a sanitizer.
// `BREAKWATER_FUZZ=1` declares the libFuzzer harnesses (Fuzz/Harnesses, one executable each, plus
// the HTTP/1.1 request and response parsers' in Fuzz/HTTP1*Parser) and keeps only the targets they need,
// so one `swift build -Xswiftc -sanitize=fuzzer,address` makes them all (scripts/fuzz.sh). Each
// harness's main starts libFuzzer through LLVMFuzzerRunDriver (Fuzz/Support); the HTTP/2 frames
// harness keeps the server target too (its HTTP2Session, on nghttp2). The dependencies
// stay declared in every shape, so Package.resolved never changes; the ones no kept target uses
// are not built.
let unitOnly = Context.environment["BREAKWATER_UNIT_ONLY"] == "1"
// `BREAKWATER_FUZZ_HTTP1=1` (`make fuzz-http1`) is the same shape; that target builds only the
// HTTP/1.1 harnesses' products.
let fuzzing = Context.environment["BREAKWATER_FUZZ"] == "1" || Context.environment["BREAKWATER_FUZZ_HTTP1"] == "1"
if unitOnly || fuzzing {
    var kept: Set<String> = ["BreakwaterCore", "BreakwaterHTTP1", "BreakwaterHTTP2"]
    if fuzzing {
        // The HTTP/2 frames harness drives the server's HTTP2Session (nghttp2 and its C doors).
        kept.formUnion(["CLibevent", "COpenSSL", "CHiredis", "CZlib", "CNghttp2", "BreakwaterServer"])
    }
    if unitOnly {
        kept.formUnion([
            "CLibevent", "COpenSSL", "CHiredis", "CZlib", "CNghttp2", "BreakwaterServer", "BreakwaterDemoOrigin",
            "BreakwaterFixtures", "BreakwaterCoreTests", "BreakwaterServerTests", "BreakwaterHTTP1Tests",
            "BreakwaterHTTP2Tests",
        ])
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products = []
}
if fuzzing {
    package.targets.append(.target(name: "FuzzSupport", path: "Fuzz/Support", swiftSettings: swiftSettings))
    for harness in ["JSON", "QueryString", "CanonicalVariables", "OperationAnalysis", "PersistedQueryStore", "Configuration"] {
        package.targets.append(
            .executableTarget(
                name: "Fuzz\(harness)",
                dependencies: ["BreakwaterCore", "FuzzSupport"],
                path: "Fuzz/Harnesses/\(harness)",
                swiftSettings: swiftSettings
            ))
    }
    package.targets.append(
        .executableTarget(
            name: "FuzzHTTP2Frames",
            dependencies: ["BreakwaterCore", "BreakwaterHTTP2", "BreakwaterServer", "FuzzSupport"],
            path: "Fuzz/Harnesses/HTTP2Frames",
            swiftSettings: swiftSettings
        ))
    for parser in ["HTTP1RequestParser", "HTTP1ResponseParser"] {
        package.targets.append(
            .executableTarget(
                name: "Fuzz\(parser)",
                dependencies: ["BreakwaterHTTP1", "FuzzSupport"],
                path: "Fuzz/\(parser)/Harness",
                swiftSettings: swiftSettings
            ))
    }
}
