# The verbs a newcomer needs. Each installs what it is missing first.
SWIFT ?= swift

.PHONY: deps build release demo test clean

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Build, then run the proxy in front of the embedded demo origin (proxy :8080, origin :4000).
demo: build
	.build/debug/breakwater demo

## Build, then run every test: core unit tests and live tests against the real binary.
test: build
	$(SWIFT) test

clean:
	rm -rf .build
