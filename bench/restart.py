#!/usr/bin/env python3
"""What a restart or an upgrade costs under load (docs/OPERATING.md, "Restarts and upgrades").

One run, four ways of replacing a running proxy while `Tests/fixtures/checking_load.py` sends
cached GraphQL GETs over keep-alive connections and checks every answer:

  plain stop + start   the old process exits, the new one binds the address itself, no snapshot
  + cache.snapshot     the same, with the cache written at stop and read at start
  socket activation    systemd-socket-activate holds the sockets (as the socket units do), snapshot
  run --takeover       the new process receives the sockets from the old one, snapshot

For each: connections refused, requests failed, requests sent again after a server closed an
idle keep-alive connection (RFC 9112 9.3.1), the hit ratio in the second before the switch and in
the first second after it, and the load's requests that reached the origin in the 5 s around the
switch (freshness sampling is off, so these are misses). Then the time
from exec to `/readyz` 200 with a snapshot of --entries entries (100,000 by default).

usage: restart.py BREAKWATER_BINARY [--entries N] [--connections N]
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
LOAD = os.path.join(HERE, "..", "Tests", "fixtures", "checking_load.py")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, timeout=2):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as response:
            return response.status, response.read()
    except Exception:
        return None, b""


def wait_for(condition, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return time.time()
        time.sleep(0.01)
    raise SystemExit(f"timed out waiting for {what}")


class Origin:
    def __init__(self, binary, folder):
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "demo", "--origin-only", "--test-controls", "--origin-listen", f"127.0.0.1:{self.port}",
             "--threads", "1", "--log-level", "warning"],
            stdout=open(os.path.join(folder, "origin.log"), "w"), stderr=subprocess.STDOUT)
        wait_for(lambda: get(self.port, "/_demo/counters")[0] == 200, 20, "the origin")
        self.samples = []
        self.stopped = threading.Event()
        threading.Thread(target=self.sample, daemon=True).start()

    def requests(self):
        """The GraphQL operations the load sends that reached the origin so far."""
        status, body = get(self.port, "/_demo/counters")
        if status != 200:
            return None
        operations = json.loads(body).get("byOperation", {})
        return operations.get("GetLaunches", 0) + operations.get("GetLaunchDetail", 0)

    def sample(self):
        while not self.stopped.is_set():
            count = self.requests()
            if count is not None:
                self.samples.append((time.time(), count))
            time.sleep(0.05)

    def requests_between(self, start, end):
        inside = [count for moment, count in self.samples if start <= moment <= end]
        return inside[-1] - inside[0] if len(inside) > 1 else None

    def stop(self):
        self.stopped.set()
        self.process.terminate()
        self.process.wait()


class Trial:
    """One configuration folder and the proxy processes started in it."""

    def __init__(self, binary, origin, snapshot, threads, max_bytes="256MiB"):
        self.binary = binary
        self.origin = origin
        self.folder = tempfile.mkdtemp(prefix="bw-restart-")
        self.port, self.admin = free_port(), free_port()
        with open(os.path.join(self.folder, "config.yaml"), "w") as config:
            config.write(f"""persisted_queries:
  store: ""
cache:
  max_bytes: {max_bytes}
  freshness:
    sample: 0
  snapshot: "{'cache.snapshot' if snapshot else ''}"
  rules:
    - operation: GetLaunchDetail
      ttl: 5m
    - operation: GetLaunches
      ttl: 5m
admin:
  handover_socket: handover.sock
logging:
  access_log: off
""")
        self.arguments = [
            binary, "run", "--config", os.path.join(self.folder, "config.yaml"), "--origin",
            f"http://127.0.0.1:{origin.port}/graphql", "--listen", f"127.0.0.1:{self.port}", "--admin-listen",
            f"127.0.0.1:{self.admin}", "--threads", str(threads), "--log-level", "notice"]
        self.log = open(os.path.join(self.folder, "proxy.log"), "w")

    def start(self, extra=()):
        process = subprocess.Popen(self.arguments + list(extra), stdout=self.log, stderr=subprocess.STDOUT)
        return process

    def ready(self):
        return get(self.admin, "/readyz")[0] == 200

    def entries(self):
        status, body = get(self.admin, "/stats")
        return json.loads(body)["cache"]["entries"] if status == 200 else 0

    def cleanup(self):
        shutil.rmtree(self.folder, ignore_errors=True)


class Load:
    def __init__(self, port, connections):
        self.stop_file = tempfile.mktemp(prefix="bw-load-stop-")
        self.process = subprocess.Popen(
            [sys.executable, LOAD, "--port", str(port), "--connections", str(connections), "--seconds", "300",
             "--stop-file", self.stop_file], stdout=subprocess.PIPE, text=True)
        self.process.stdout.readline()

    def finish(self):
        open(self.stop_file, "w").close()
        result = json.loads(self.process.stdout.readline())
        self.process.wait()
        os.unlink(self.stop_file)
        return result


def hit_ratio(timeline, start, end):
    answers = sum(a for t, a, _ in timeline if start <= t < end)
    return sum(h for t, _, h in timeline if start <= t < end) / answers if answers else None


def measure(name, trial, replace, connections):
    """Starts the first proxy, warms it under load, replaces it with `replace`, and reports."""
    first = replace.first(trial)
    wait_for(lambda: trial.entries() >= 300, 60, "a warm cache")
    load = Load(trial.port, connections)
    # Long enough that the 5 s window around the switch starts after the warm-up's last misses.
    time.sleep(4)
    restarted = time.time()
    switched, last = replace.switch(trial, first)
    wait_for(lambda: time.time() >= switched + 3, 10, "the second after")
    result = load.finish()
    replace.stop(trial, last)
    before = hit_ratio(result["timeline"], restarted - 1, restarted)
    after = hit_ratio(result["timeline"], switched, switched + 1)
    causes = result["causes"]
    row = {
        "name": name, "answered": causes["ok"], "refused": causes["refused"],
        "failed": result["failed"] - causes["refused"],
        "retried": causes["retried"], "before": before, "after": after,
        "origin": trial.origin.requests_between(switched - 2.5, switched + 2.5),
        "gap_ms": round((switched - restarted) * 1000), "examples": result["examples"][:3]}
    print(json.dumps(row), file=sys.stderr, flush=True)
    return row


class StopStart:
    def first(self, trial):
        process = trial.start()
        wait_for(trial.ready, 20, "the first proxy")
        self.warm(trial)
        return process

    @staticmethod
    def warm(trial):
        warm = Load(trial.port, 4)
        wait_for(lambda: trial.entries() >= 300, 60, "a warm cache")
        warm.finish()

    def switch(self, trial, process):
        process.terminate()
        process.wait()
        new = trial.start()
        return wait_for(trial.ready, 60, "the new proxy"), new

    def stop(self, trial, process):
        process.terminate()
        process.wait()


class Takeover(StopStart):
    def switch(self, trial, process):
        new = trial.start(["--takeover", os.path.join(trial.folder, "handover.sock")])
        # The new process serves from the moment it logs so; the old one then drains.
        log = os.path.join(trial.folder, "proxy.log")
        moment = wait_for(lambda: "takeover: serving on inherited sockets" in open(log).read(), 60, "the takeover")
        process.wait()
        return moment, new


class SocketActivation(StopStart):
    """systemd-socket-activate holds both sockets and runs a shell that starts the proxy again
    whenever it exits, each time with LISTEN_PID set to the proxy's own pid."""

    def first(self, trial):
        self.stop_file = os.path.join(trial.folder, "stop")
        command = " ".join(trial.arguments)
        loop = f"while [ ! -e {self.stop_file} ]; do /bin/sh -c 'LISTEN_PID=$$; export LISTEN_PID; exec {command}'; done"
        self.holder = subprocess.Popen(
            ["systemd-socket-activate", "-l", f"127.0.0.1:{trial.port}", "-l", f"127.0.0.1:{trial.admin}",
             "--fdname=graphql:admin", "/bin/sh", "-c", loop], stdout=trial.log, stderr=subprocess.STDOUT)
        time.sleep(0.2)
        wait_for(trial.ready, 20, "the socket-activated proxy")
        self.warm(trial)
        return self.child()

    def child(self):
        with open(f"/proc/{self.holder.pid}/task/{self.holder.pid}/children") as children:
            pids = children.read().split()
        return int(pids[0]) if pids else None

    def switch(self, trial, pid):
        os.kill(pid, 15)
        wait_for(lambda: self.child() not in (None, pid), 30, "the next proxy")
        return wait_for(trial.ready, 60, "the restarted proxy"), None

    def stop(self, trial, _):
        open(self.stop_file, "w").close()
        child = self.child()
        if child:
            os.kill(child, 15)
        self.holder.wait(timeout=30)


def time_to_ready(binary, origin, entries, threads):
    """Fills a proxy with `entries` answers, stops it (the snapshot is written), and times the
    next start from exec to /readyz 200."""
    trial = Trial(binary, origin, snapshot=True, threads=threads, max_bytes="1GiB")
    process = trial.start()
    wait_for(trial.ready, 20, "the proxy")
    uris = os.path.join(trial.folder, "uris.txt")
    query = "query GetLaunches($pageSize: Int) { launches(pageSize: $pageSize) { launches { id } } }"
    from urllib.parse import urlencode
    with open(uris, "w") as out:
        for size in range(1, entries + 1):
            params = urlencode({"query": query, "operationName": "GetLaunches", "variables": json.dumps({"pageSize": size})})
            out.write(f"http://127.0.0.1:{trial.port}/graphql?{params}\n")
    # One client: h2load gives each client the list from its start.
    subprocess.run(["h2load", "-i", uris, "-n", str(entries), "-c", "1", "-m", "32"], stdout=subprocess.DEVNULL, check=True)
    stored = trial.entries()
    stopped = time.time()
    process.terminate()
    process.wait()
    stop_s = time.time() - stopped
    size = os.path.getsize(os.path.join(trial.folder, "cache.snapshot"))
    started = time.time()
    process = trial.start()
    ready = wait_for(trial.ready, 120, "the proxy with the snapshot") - started
    loaded = trial.entries()
    trial.log.flush()
    lines = [line for line in open(os.path.join(trial.folder, "proxy.log")) if "cache snapshot loaded" in line]
    took = lines[-1].split("snapshot.took_ms=")[1].split()[0] if lines else "-"
    written = [line for line in open(os.path.join(trial.folder, "proxy.log")) if "cache snapshot written" in line]
    write_took = written[-1].split("snapshot.took_ms=")[1].split()[0] if written else "-"
    process.terminate()
    process.wait()
    trial.cleanup()
    return {"stored": stored, "loaded": loaded, "file_mb": round(size / 1e6, 1), "stop_s": round(stop_s, 2),
            "ready_s": round(ready, 2), "load_ms": took, "write_ms": write_took}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--connections", type=int, default=6)
    parser.add_argument("--threads", type=int, default=2)
    arguments = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="bw-restart-origin-")
    origin = Origin(arguments.binary, folder)
    rows = []
    try:
        for name, snapshot, replace in [
            ("stop, then start (binds the address itself)", False, StopStart()),
            ("the same with cache.snapshot", True, StopStart()),
            ("socket activation (systemd-socket-activate) + snapshot", True, SocketActivation()),
            ("run --takeover + snapshot", True, Takeover()),
        ]:
            trial = Trial(arguments.binary, origin, snapshot, arguments.threads)
            rows.append(measure(name, trial, replace, arguments.connections))
            trial.cleanup()
        ready = time_to_ready(arguments.binary, origin, arguments.entries, arguments.threads)
    finally:
        origin.stop()
        shutil.rmtree(folder, ignore_errors=True)

    def ratio(value):
        return "-" if value is None else f"{value * 100:.1f} %"

    print("| restart | answered | refused | failed otherwise | sent again | hit ratio, second before | first second after | origin fetches, 5 s around | switch took |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print(f"| {row['name']} | {row['answered']} | {row['refused']} | {row['failed']} | {row['retried']} | "
              f"{ratio(row['before'])} | {ratio(row['after'])} | {row['origin']} | {row['gap_ms']} ms |")
    print()
    print(f"Snapshot of {ready['stored']} entries ({ready['file_mb']} MB): stop {ready['stop_s']} s (the write "
          f"{ready['write_ms']} ms); exec to /readyz 200 {ready['ready_s']} s (the load {ready['load_ms']} ms), "
          f"{ready['loaded']} entries loaded")


if __name__ == "__main__":
    main()
