# The verbs a newcomer needs. Each installs what it is missing first.
SWIFT ?= swift

.PHONY: deps build release demo test dashboard-check microbench clean python-deps image version

# The version `breakwater --version` prints, from the one place it is set.
VERSION := $(shell sed -n 's/^ *public static let version = "\(.*\)"$$/\1/p' Sources/BreakwaterCore/Stats/BuildInfo.swift)

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Build, then run the proxy in front of the embedded demo origin (proxy :8080, origin :4000).
demo: build
	.build/debug/breakwater demo

## Build, then run every test: core unit tests, live tests against the real binary, the
## dashboard in a real headless Chromium, and docs/GETTING-STARTED.md run as written.
test: build python-deps
	$(SWIFT) test
	bash scripts/dashboard-check.sh
	bash Fuzz/HTTP1Differential/run.sh
	bash scripts/getting-started.sh

## docs/GETTING-STARTED.md as a test: its commands run in an empty folder against the built
## binary, the output it shows compared (scripts/getting-started.py; about 30 s).
.PHONY: getting-started
getting-started: build
	bash scripts/getting-started.sh

## Python packages the tests use (the reference Prometheus parser for /metrics), from PyPI.
python-deps:
	@scripts/install-python-deps.sh

## The admin dashboard against a running proxy in headless Chromium (installs chromium).
dashboard-check: build
	bash scripts/dashboard-check.sh

## Micro-benchmarks of the core (parsing, keys, store, endpoint), built in release by the plugin.
microbench: deps
	$(SWIFT) package --allow-writing-to-package-directory benchmark --target BreakwaterBenchmarks

clean:
	rm -rf .build

## Breakwater against nginx proxy_cache side by side (bench/run.sh; BENCH_QUICK=1 for a smoke test), then the
## L2 (Redis) path beside a local hit and an origin fetch (bench/l2.sh).
.PHONY: bench
bench:
	bash bench/run.sh
	bash bench/l2.sh

## bench/run.sh BENCH_REPEAT times (default 7), new processes each time, and the median ratio of
## every row to nginx: a process's speed persists for its life, so only repetitions average it out.
.PHONY: bench-repeat
bench-repeat:
	bash bench/repeat.sh

## A restart and a takeover under load: refused connections, failed requests, the hit ratio
## around the switch, and the time to ready with a 100k-entry cache snapshot (docs/OPERATING.md).
.PHONY: bench-restart
bench-restart:
	bash bench/restart.sh

## What HTTP/2 rapid reset costs a legitimate client's misses: alone, then under attack (RELIABILITY.md).
.PHONY: bench-rapid-reset
bench-rapid-reset:
	bash bench/rapid-reset.sh

# Row (f) with Breakwater and nginx proxy_pass side by side on one CPU (BENCHMARKS.md).
.PHONY: bench-miss-side
bench-miss-side:
	bash bench/miss-side.sh

## Regenerates Sources/breakwater/link.order (the functions placed first in the binary) from a
## callgrind run of the release binary under mixed traffic; commit the result.
.PHONY: link-order
link-order:
	bash bench/link-order.sh

## Reliability (RELIABILITY.md) ------------------------------------------------------------------------
FUZZ_SECONDS ?= 60
CI_FUZZ_SECONDS ?= 5
.PHONY: fuzz test-asan test-asan-live test-tsan soak ci ci-sanitizers

## libFuzzer harnesses (Fuzz/), FUZZ_SECONDS each, built into .build-fuzz; a crash fails the target.
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

## The core and HTTP/1 unit tests under AddressSanitizer with leak detection (.build-asan). The
## package is shaped by BREAKWATER_UNIT_ONLY=1 (Package.swift): only what those tests need is built.
test-asan: deps
	BREAKWATER_UNIT_ONLY=1 \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitizers/lsan.supp:print_suppressions=0 \
	$(SWIFT) test --scratch-path .build-asan --sanitize=address

## Every test under AddressSanitizer, the live ones too (they start the ASan-built breakwater):
## the whole package built with ASan (.build-asan-live), slow (26 min on a loaded 2-core machine).
test-asan-live: deps
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitizers/lsan.supp:print_suppressions=0 \
	$(SWIFT) test --scratch-path .build-asan-live --sanitize=address

## The core and HTTP/1 unit tests under ThreadSanitizer (.build-tsan), same package shape as
## test-asan, with scripts/sanitizers/tsan.supp (see RELIABILITY.md, "Sanitizers"). The 800 KB
## document's 500 ms bound is a timing test that TSan's slowdown breaks: skipped here.
test-tsan: deps
	BREAKWATER_UNIT_ONLY=1 \
	TSAN_OPTIONS=suppressions=$(CURDIR)/scripts/sanitizers/tsan.supp:halt_on_error=1:second_deadlock_stack=1 \
	$(SWIFT) test --scratch-path .build-tsan --sanitize=thread --skip an800KBDocumentIsRefusedQuickly

## What CI runs besides `make test`: `make test-asan` (the unit tests under ASan with leak
## detection), then `make fuzz` for CI_FUZZ_SECONDS (5) per harness, the HTTP/1 request parser's
## included. Each step prints its wall time.
ci-sanitizers: deps
	CI_FUZZ_SECONDS=$(CI_FUZZ_SECONDS) bash scripts/ci-sanitizers.sh

## Everything CI runs (.ci/run): the tests, the deploy files, the sanitizers and the short fuzz.
ci: check-words test deploy-check ci-sanitizers

## Every fault at once, every answer checked, for MINUTES (default 30; or DURATION=90s): two proxies,
## Redis with a Sentinel, the demo origin, a CDN stand-in; one table, RSS and fds in .build/soak/. Not in CI.
soak: build
	MINUTES=$(MINUTES) DURATION=$(DURATION) bash scripts/soak.sh

## HTTP/1.1 engine: the request and response parsers' libFuzzer harnesses for
## FUZZ_HTTP1_SECONDS each (default 60) from their seed corpora, and the differential test against llhttp.
.PHONY: fuzz-http1 http1-differential
fuzz-http1: deps
	bash Fuzz/HTTP1RequestParser/fuzz.sh

http1-differential: deps
	bash Fuzz/HTTP1Differential/run.sh

## Where a cache hit's time goes: perf samples of one loop under wrk, per library and symbol.
.PHONY: profile-hit bench-callgrind
profile-hit:
	bash bench/profile.sh

## Instructions per request (hit GET, hit POST, gzip hit, miss) counted by callgrind over a fixed
## number of requests: comparable between two versions of the code on a loaded machine.
bench-callgrind:
	bash bench/callgrind.sh

## TLS transports side by side: OpenSSL on the socket vs bufferevent_openssl (bench/tls/run.sh).
bench-tls:
	bash bench/tls/run.sh

## Deploy files: hadolint, kubernetes-validate --strict, systemd-analyze verify,
## `breakwater validate` of the shipped configs, the package lists (deploy/packages/) against
## install-deps.sh, the Dockerfile and the linked libraries, the documented image tags, and the
## Dockerfile's build context.
.PHONY: deploy-check deploy-build
deploy-check: deps
	bash scripts/deploy-check.sh

## The container image, tagged with the version (breakwater:$(VERSION), never latest); needs a
## Docker engine (docs/DEPLOYING.md, "Or the container image").
image:
	docker build -f deploy/Dockerfile -t breakwater:$(VERSION) .

## Prints the version, as `breakwater --version` will.
version:
	@echo $(VERSION)

## The Dockerfile's build stage run here on exactly its COPY sources (a release build: slow).
deploy-build: deps
	bash scripts/deploy-build.sh

## The repository speaks of the product only: no outside contract, tracker numbers, dated work
## logs, branches or roles in tracked files (scripts/check-words.sh).
.PHONY: check-words
check-words:
	bash scripts/check-words.sh

## CI's guard on the hot paths: instructions per request (callgrind) for the hashed-GET hit, POST
## hit, gzip hit, miss (TTL-0 rule, and default configuration) and connection churn against
## bench/perf-budgets.txt; fails past +10 %.
.PHONY: perf-guard
perf-guard: deps
	bash bench/perf-guard.sh
