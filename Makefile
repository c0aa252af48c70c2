# The verbs a newcomer needs. Each installs what it is missing first.
SWIFT ?= swift

.PHONY: deps build release demo test dashboard-check microbench clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Build, then run the proxy in front of the embedded demo origin (proxy :8080, origin :4000).
demo: build
	.build/debug/breakwater demo

## Build, then run every test: core unit tests, live tests against the real binary, and the
## dashboard in a real headless Chromium.
test: build
	$(SWIFT) test
	bash scripts/dashboard-check.sh
	bash Fuzz/HTTP1Differential/run.sh

## The admin dashboard against a running proxy in headless Chromium (installs chromium).
dashboard-check: build
	bash scripts/dashboard-check.sh

## Micro-benchmarks of the core (parsing, keys, store, endpoint), built in release by the plugin.
microbench: deps
	$(SWIFT) package --allow-writing-to-package-directory benchmark --target BreakwaterBenchmarks

clean:
	rm -rf .build

## Breakwater against nginx proxy_cache, side by side (bench/run.sh; BENCH_QUICK=1 for a smoke test).
.PHONY: bench
bench:
	bash bench/run.sh

## HTTP/1.1 engine (issue 12): the request parser's libFuzzer harness for FUZZ_HTTP1_SECONDS
## (default 60) from its committed seed corpus, and the differential test against llhttp.
.PHONY: fuzz-http1 http1-differential
fuzz-http1: deps
	bash Fuzz/HTTP1RequestParser/fuzz.sh

http1-differential: deps
	bash Fuzz/HTTP1Differential/run.sh

## Where a cache hit's time goes: perf samples of one loop under wrk, per library and symbol.
.PHONY: profile-hit
profile-hit:
	bash bench/profile.sh
