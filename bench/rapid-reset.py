#!/usr/bin/env python3
"""What HTTP/2 rapid reset (CVE-2023-44487) costs a legitimate client (RELIABILITY.md, "Threat model").

One proxy (one loop, pinned to CPU 0; everything else on the other CPUs) in front of the demo origin, whose answers are slowed to --delay ms. A legitimate client
sends misses (distinct launch ids of a cached operation) one after another over one keep-alive
HTTP/1.1 connection for --seconds, twice: alone, then while --attackers connections each open and
reset --streams streams of distinct misses (`Tests/fixtures/h2_attacks.py rapid-reset`), again and
again. Prints, for both phases: the legitimate misses' count, p50, p99 and worst latency, its
failures, the origin fetches, and the attack's connections and streams; then the proxy's
`upstream.cancelled`.

usage: rapid-reset.py BREAKWATER_BINARY [--seconds S] [--attackers N] [--streams N] [--delay MS]
"""

import argparse
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from restart import Origin, Trial, get, wait_for  # noqa: E402

ATTACKS = os.path.join(HERE, "..", "Tests", "fixtures", "h2_attacks.py")
QUERY = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"


def launch_path(launch_id):
    return "/graphql?" + urllib.parse.urlencode(
        {"query": QUERY, "operationName": "GetLaunchDetail", "variables": json.dumps({"id": launch_id})})


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def legitimate(port, seconds, tag):
    """Misses one after another for `seconds`: (latencies in ms, failures)."""
    latencies, failures = [], 0
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    deadline, index = time.time() + seconds, 0
    while time.time() < deadline:
        index += 1
        started = time.perf_counter()
        try:
            connection.request("GET", launch_path(f"{tag}-{index}"))
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                failures += 1
        except Exception:
            failures += 1
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            continue
        latencies.append((time.perf_counter() - started) * 1000)
    connection.close()
    return latencies, failures


class Attack:
    """--attackers loops, each opening a connection, resetting its streams, and again."""

    def __init__(self, port, attackers, streams):
        self.port, self.streams = port, streams
        self.stopped = threading.Event()
        self.connections = 0
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.loop, args=(n,), daemon=True) for n in range(attackers)]
        for thread in self.threads:
            thread.start()

    def loop(self, attacker):
        round_ = 0
        while not self.stopped.is_set():
            round_ += 1
            subprocess.run(
                [sys.executable, ATTACKS, "--port", str(self.port), "--path",
                 launch_path(f"a{attacker}-{round_}-STREAMINDEX"), "--quiet", "0.2", "rapid-reset", "--streams",
                 str(self.streams)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                preexec_fn=lambda: os.nice(19))
            with self.lock:
                self.connections += 1

    def stop(self):
        self.stopped.set()
        for thread in self.threads:
            thread.join()


def phase(name, trial, origin, seconds, attack=None):
    before = origin.requests()
    latencies, failures = legitimate(trial.port, seconds, name)
    connections = 0
    if attack:
        attack.stop()
        connections = attack.connections
    fetches = origin.requests() - before
    return (f"| {name} | {len(latencies)} | {percentile(latencies, 0.5):.1f} | {percentile(latencies, 0.99):.1f} | "
            f"{max(latencies, default=0):.1f} | {failures} | {fetches} | {connections} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--attackers", type=int, default=10)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--delay", type=int, default=50)
    arguments = parser.parse_args()

    # The proxy (one loop) alone on CPU 0; the origin, the attackers and the legitimate client on
    # the other CPUs, the attackers at the lowest priority, so that what the legitimate client
    # sees is the attack's cost to the proxy, not to the machine's other CPU.
    others = os.sched_getaffinity(0) - {0} or {0}
    os.sched_setaffinity(0, others)
    origin = Origin(arguments.binary, os.environ.get("TMPDIR", "/tmp"))
    trial = Trial(arguments.binary, origin, snapshot=False, threads=1)
    trial.arguments = ["taskset", "-c", "0"] + trial.arguments
    process = trial.start()
    try:
        wait_for(trial.ready, 20, "the proxy")
        urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{origin.port}/_demo/faults", data=json.dumps({"delayMs": arguments.delay}).encode(),
            headers={"Content-Type": "application/json"}), timeout=5).read()
        print(f"origin answers after {arguments.delay} ms; {arguments.attackers} attacking connections at a time, "
              f"{arguments.streams} reset streams each; {arguments.seconds:.0f} s per phase")
        print()
        print("| phase | legitimate misses | p50 ms | p99 ms | worst ms | failed | origin fetches | attack connections |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        print(phase("alone", trial, origin, arguments.seconds))
        attack = Attack(trial.port, arguments.attackers, arguments.streams)
        print(phase("under rapid reset", trial, origin, arguments.seconds, attack))
        status, body = get(trial.admin, "/stats")
        cancelled = json.loads(body)["upstream"].get("cancelled", "?") if status == 200 else "?"
        print()
        print(f"fetches cancelled (upstream.cancelled): {cancelled}")
    finally:
        process.terminate()
        process.wait()
        origin.stop()
        trial.cleanup()


if __name__ == "__main__":
    main()
