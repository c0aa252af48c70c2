#!/usr/bin/env python3
"""Differential test of Breakwater's HTTP/1.1 request parser against llhttp (via httptools).

Generates requests (valid ones, the framing attacks README lists, and seeded random mutations
of both), feeds each to llhttp and to `http1-verdict`, and requires the same verdict: accept or
reject, and for every complete request its method, target, version, headers and body.
Disagreements that Breakwater's own rules decide (listed in EXCEPTIONS, each with its rule) are counted apart;
any other disagreement fails the run and is printed as a replayable case.

Usage: differential.py PATH-TO-http1-verdict [--cases N] [--seed S]
"""
import json
import re
import random
import subprocess
import sys

import httptools

# Where Breakwater's rules (README's "GraphQL over HTTP rules", after RFC 9110/9112) decide otherwise than llhttp.
EXCEPTIONS = {
    "missing-host": "README: an HTTP/1.1 request without Host -> 400 (llhttp accepts it)",
    "duplicate-host": "README: two Host headers -> 400 (llhttp accepts them)",
    "transfer-coding": "README: a Transfer-Encoding other than exactly `chunked` -> 501 "
                       "(llhttp decodes `gzip, chunked` and passes other codings on)",
    "te-http10": "RFC 9112 6.1: Transfer-Encoding in an HTTP/1.0 request is faulty framing -> 400",
    "same-content-length": "README: only two Content-Length values that DIFFER are refused "
                           "(llhttp refuses any repeated Content-Length)",
    "any-method": "README: every method token reaches the handler, which answers 405 "
                  "(llhttp knows a fixed list of methods)",
    "version": "README: only HTTP/1.0 and HTTP/1.1 are accepted (llhttp also takes 0.9 and 2.x heads)",
    "trailers": "RFC 9110 6.5.1: trailer fields are checked and dropped, never used for framing "
                "(llhttp applies Content-Length rules to them)",
    "request-line": "README: a request line that is not METHOD SP target SP HTTP/1.x -> 400 "
                    "(llhttp skips repeated spaces)",
    "target-bytes": "README: a target holding any byte outside visible ASCII -> 400 "
                    "(llhttp takes some in fragments and queries)",
    "target-form": "RFC 9112 3.2: a target that is not /path, scheme:..., * or (with CONNECT) host:port -> 400 "
                   "(llhttp takes some others)",
    "value-bytes": "RFC 9110 5.5: DEL and control characters other than HTAB are not field-vchar -> 400",
    "chunk-extension-bws": "RFC 9112 7.1.1: BWS may come around a chunk extension's \";\" and \"=\" "
                           "(llhttp refuses any whitespace there)",
    "chunk-extension-empty": "RFC 9112 7.1.1: a chunk extension's name and token value are 1*tchar "
                             "(llhttp takes an empty name or value)",
}


class Collector:
    def __init__(self):
        self.messages = []
        self.current = None
        self.parser = None
        self.heads = []

    def on_message_begin(self):
        self.current = {"url": b"", "headers": [], "body": b""}

    def on_url(self, url):
        self.current["url"] += url

    def on_header(self, name, value):
        # Trailer fields come after the head; Breakwater checks and drops them (nothing it
        # forwards may come from a trailer), so only head fields are compared.
        if len(self.heads) == len(self.messages):
            self.current["headers"].append((name, value))

    def on_headers_complete(self):
        self.heads.append((self.parser.get_method(), self.parser.get_http_version()))

    def on_body(self, body):
        self.current["body"] += body

    def on_message_complete(self):
        self.messages.append(self.current)


def llhttp_verdict(wire):
    collector = Collector()
    parser = httptools.HttpRequestParser(collector)
    collector.parser = parser
    error = None
    try:
        parser.feed_data(wire)
    except httptools.HttpParserUpgrade:
        error = "upgrade"
    except httptools.HttpParserError as failure:
        error = str(failure) or type(failure).__name__
    requests = []
    for index, message in enumerate(collector.messages):
        requests.append({
            "method": collector.heads[index][0],
            "target": message["url"],
            "version": collector.heads[index][1],
            # RFC 9110 5.5: a field value excludes trailing whitespace (llhttp keeps it).
            "headers": [(n, v.rstrip(b" \t")) for n, v in message["headers"]],
            "body": message["body"],
        })
    return requests, error


def ours(outputs):
    result = []
    for line in outputs:
        verdict = json.loads(line)
        requests = [{
            "method": bytes.fromhex(r["method"]),
            "target": bytes.fromhex(r["target"]),
            "version": r["version"],
            "headers": [(bytes.fromhex(n), bytes.fromhex(v)) for n, v in r["headers"]],
            "body": bytes.fromhex(r["body"]),
        } for r in verdict["requests"]]
        result.append((requests, verdict["error"]))
    return result


# MARK: generation

METHODS = [b"GET", b"POST", b"HEAD", b"PUT", b"DELETE", b"OPTIONS", b"PATCH"]
TARGETS = [b"/graphql", b"/graphql?query=%7Bme%7D&variables=%7B%7D", b"/", b"/a/b?c=d#e", b"*", b"/x?y"]


def request(rng, body=None, chunked=False, extra=(), version=b"1.1", host=True, method=None):
    method = method or rng.choice(METHODS)
    lines = [method + b" " + rng.choice(TARGETS) + b" HTTP/" + version]
    if host:
        lines.append(b"Host: example.com")
    lines.append(b"User-Agent: diff/1")
    lines.extend(extra)
    payload = b""
    if body is not None:
        if chunked:
            lines.append(b"Transfer-Encoding: chunked")
            pieces = [body[i:i + 7] for i in range(0, len(body), 7)]
            payload = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
        else:
            lines.append(b"Content-Length: %d" % len(body))
            payload = body
    return b"\r\n".join(lines) + b"\r\n\r\n" + payload


def base_cases(rng):
    body = b'{"query":"{ me { id } }"}'
    yield request(rng, method=b"GET")
    yield request(rng, body=body, method=b"POST")
    yield request(rng, body=body, chunked=True, method=b"POST")
    yield request(rng, method=b"GET", version=b"1.0", host=False)
    yield request(rng, method=b"GET") + request(rng, body=body, method=b"POST") + request(rng, method=b"HEAD")
    yield request(rng, method=b"GET", extra=[b"Connection: close"])
    yield request(rng, method=b"GET", extra=[b"X-Empty:", b"X-Spaces:   padded   ", b"X-Tab:\tv"])
    # The framing attacks README lists.
    yield request(rng, body=body, method=b"POST", extra=[b"Transfer-Encoding: chunked"])
    yield request(rng, body=body, method=b"POST", extra=[b"Content-Length: 99"])
    yield request(rng, body=body, method=b"POST", extra=[b"Content-Length: %d" % len(body)])
    yield b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc"
    yield b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x3\r\n\r\nabc"
    yield b"GET / HTTP/1.1\r\nHost : a\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nX: 1\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\n\r\n"
    yield b"GET /a b HTTP/1.1\r\nHost: a\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n"
    yield b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"
    yield b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
    yield b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\nT: 1\r\n\r\n"
    # Chunk extensions (RFC 9112 7.1.1): a name is a token, a value a token or a quoted-string.
    chunked = b"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
    for extension in [b";", b";a=\"open", b";a=\"q\\\"x\";b;c=d", b";a=b c", b";a=\"x\"y", b";a=\"\x01\"", b";a=@",
                      b";a=\"\x80\"", b";\x80", b";a b"]:
        yield chunked + b"5" + extension + b"\r\nhello\r\n0\r\n\r\n"
    yield b"GET / HTTP/1.1\nHost: a\n\n"
    yield b"\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n"


def mutate(rng, wire):
    wire = bytearray(wire)
    for _ in range(rng.randint(1, 3)):
        choice = rng.random()
        position = rng.randrange(len(wire) + 1)
        if choice < 0.3 and wire:
            del wire[min(position, len(wire) - 1)]
        elif choice < 0.6 and wire:
            wire[min(position, len(wire) - 1)] = rng.choice(b" \t\r\n\x00:;,-/\x7f\x80AZaz09")
        else:
            token = rng.choice([b"\r\n", b" ", b"\t", b":", b"\x00", b"Content-Length: 5\r\n",
                                b"Transfer-Encoding: chunked\r\n", b"Host: h\r\n", b"\r\n ", b"0\r\n\r\n"])
            wire[position:position] = token
    return bytes(wire)


def cases(count, seed):
    rng = random.Random(seed)
    bases = list(base_cases(rng))
    result = list(bases)
    while len(result) < count:
        result.append(mutate(rng, rng.choice(bases)))
    return result


# MARK: comparison

def exception_for(wire, mine, theirs):
    """The rule that explains a disagreement, or None."""
    (my_requests, my_error), (their_requests, their_error) = mine, theirs
    head = wire.split(b"\r\n\r\n", 1)[0].lower()
    if my_error == "missingHost":
        return "missing-host"
    if my_error == "duplicateHost":
        return "duplicate-host"
    if my_error == "unsupportedTransferEncoding":
        return "transfer-coding"
    if my_error == "transferEncodingInHTTP10":
        return "te-http10"
    if their_error and "Duplicate Content-Length" in their_error and (my_error is None or my_requests):
        return "same-content-length"
    if my_error is None and their_error and b"\r\n0\r\n" in wire and "chunk" not in their_error.lower():
        return "trailers"
    if their_error and "Invalid method" in their_error:
        return "any-method"
    if my_error == "badVersion" or (their_error and "version" in their_error.lower()):
        return "version"
    if my_error == "badRequestLine" and any(r["version"] not in ("1.0", "1.1") for r in their_requests):
        return "version"
    lines = wire.split(b"\r\n")
    if my_error == "badRequestLine" and len(my_requests) == 0 and lines[0].count(b" ") < 2:
        return "version"
    if my_error == "badRequestLine" and b"  " in wire.split(b"\r\n")[len(my_requests) if False else 0] + b"".join(
            line for line in wire.split(b"\n") if b" HTTP/" in line and b"  " in line):
        return "request-line"
    if my_error == "badTarget" and their_error is None:
        return "target-bytes"
    if my_error == "badTargetForm" and their_error is None:
        return "target-form"
    if their_error and ("url" in their_error.lower() or "path" in their_error.lower()) and my_error is None:
        return "target-bytes"
    if my_error == "badHeaderValue" and their_error is None:
        return "value-bytes"
    chunk_lines = b"\r\n".join(wire.split(b"\r\n\r\n", 1)[1:])
    if my_error is None and their_error and "chunk" in their_error.lower() and re.search(rb"[0-9a-fA-F][ \t]*;", chunk_lines) \
            and re.search(rb"[0-9a-fA-F;=][ \t]+[;=]|[;=][ \t]+[!-~]", chunk_lines):
        return "chunk-extension-bws"
    if my_error == "badChunk" and their_error is None and re.search(rb";[=;]|=[;\r]", chunk_lines):
        return "chunk-extension-empty"
    return None


def same(mine, theirs):
    (my_requests, my_error), (their_requests, their_error) = mine, theirs
    if (my_error is None) != (their_error is None):
        return False
    if len(my_requests) != len(their_requests):
        return False
    for a, b in zip(my_requests, their_requests):
        if a["method"].decode("latin-1") != b["method"].decode("latin-1") or a["target"] != b["target"]:
            return False
        if a["version"] != b["version"] or a["headers"] != b["headers"] or a["body"] != b["body"]:
            return False
    return True


def main():
    verdict_path = sys.argv[1]
    count = int(sys.argv[sys.argv.index("--cases") + 1]) if "--cases" in sys.argv else 4000
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 12
    all_cases = cases(count, seed)
    run = subprocess.run([verdict_path], input="".join(c.hex() + "\n" for c in all_cases).encode(),
                         capture_output=True, check=True)
    my_verdicts = ours(run.stdout.decode().splitlines())
    assert len(my_verdicts) == len(all_cases), "http1-verdict answered %d of %d cases" % (len(my_verdicts), len(all_cases))
    agreed, excepted, failures = 0, {}, []
    for wire, mine in zip(all_cases, my_verdicts):
        theirs = llhttp_verdict(wire)
        if same(mine, theirs):
            agreed += 1
            continue
        rule = exception_for(wire, mine, theirs)
        if rule:
            excepted[rule] = excepted.get(rule, 0) + 1
        else:
            failures.append((wire, mine, theirs))
    print("http1 differential: %d cases (seed %d): %d agree with llhttp, %d differ where Breakwater's rules decide, %d disagree"
          % (len(all_cases), seed, agreed, sum(excepted.values()), len(failures)))
    for rule, n in sorted(excepted.items()):
        print("  %4d  %s" % (n, EXCEPTIONS[rule]))
    for wire, mine, theirs in failures[:10]:
        print("DISAGREE on %r\n  breakwater: %r\n  llhttp:     %r" % (wire, mine, theirs))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
