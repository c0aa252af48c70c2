#!/usr/bin/env python3
"""Every fault at once, every answer checked (scripts/soak.sh, RELIABILITY.md "Soak").

Starts the parts (scripts/soak/parts.py), sends checked traffic over HTTP/1.1 and HTTP/2 to both
proxies (scripts/soak/checks.py), injects faults at random intervals (several may overlap), samples
each proxy's RSS, fds and threads into a CSV, and ends with one table. Exits 1 when a row that must
be 0 is not.

usage: soak.py BINARY --seconds N --out FOLDER [--mean-gap S] [--seed N]
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from checks import Purger, Tally, UserWorker, Worker  # noqa: E402
from parts import (ROOT, Origin, Proxy, Recorder, Redis, Sentinel, get, metric,  # noqa: E402
                   process_figures)

H2_ATTACKS = os.path.join(ROOT, "Tests", "fixtures", "h2_attacks.py")
FLOODS = {
    "rapid-reset": ["rapid-reset", "--streams", "2000"],
    "continuation": ["continuation", "--frames", "5000"],
    "settings-flood": ["settings-flood", "--frames", "50000"],
    "ping-flood": ["ping-flood", "--frames", "50000"],
    "priority-flood": ["priority-flood", "--frames", "10000"],
    "empty-data": ["empty-data", "--frames", "50000"],
    "hpack-bomb": ["hpack-bomb"],
    "max-streams": ["max-streams", "--streams", "300"],
}


class Faults:
    """Faults at random moments (exponential gaps of mean `mean_gap`), each in its own thread; one
    at a time per part, different parts' faults overlapping. The first round has every kind."""

    def __init__(self, soak, mean_gap, seed):
        self.soak, self.mean_gap = soak, mean_gap
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.threads = []
        self.kinds = {
            "origin restart": ("origin", self.origin_restart),
            "origin slowdown": ("origin", self.origin_slowdown),
            "redis restart": ("redis", self.redis_restart),
            "redis pause": ("redis", self.redis_pause),
            "sentinel failover": ("redis", self.sentinel_failover),
            "sighup": ("proxies", self.sighup),
            "takeover": ("proxies", self.takeover),
            "h2 flood": ("flood", self.h2_flood),
            "cdn down": ("cdn", self.cdn_down),
        }
        self.locks = {part: threading.Lock() for part, _ in self.kinds.values()}

    def run(self):
        order = list(self.kinds)
        self.rng.shuffle(order)
        while not self.stop.wait(self.rng.expovariate(1 / self.mean_gap)):
            kind = order.pop(0) if order else self.rng.choice(list(self.kinds))
            part, action = self.kinds[kind]
            if not self.locks[part].acquire(blocking=False):
                if order is not None:
                    order.append(kind)
                continue
            thread = threading.Thread(target=self.perform, args=(kind, part, action), daemon=True)
            self.threads.append(thread)
            thread.start()

    def perform(self, kind, part, action):
        tally = self.soak.tally
        index = tally.fault_started(kind)
        try:
            problem = action()
        except Exception as error:
            problem = f"the soak failed to inject it: {error!r}"
        finally:
            tally.fault_ended(index)
            self.locks[part].release()
        if problem:
            tally.add("fault problem " + kind, problem)
        else:
            tally.add("fault " + kind)

    def finish(self):
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=120)

    def pause(self, low, high):
        time.sleep(self.rng.uniform(low, high))

    def origin_restart(self):
        origin = self.soak.origin
        self.soak.tally.origin_epoch += 1  # its bookings are gone: states read after this are unknown
        origin.stop(self.rng.choice((signal.SIGTERM, signal.SIGKILL)))
        self.pause(0.5, 3)
        origin.start()

    def origin_slowdown(self):
        origin = self.soak.origin
        delay = self.rng.choice((200, 800, 1500, 4000))  # 4 s is past origin.timeout: 504s expected
        if not origin.faults({"delayMs": delay}):
            return "POST /_demo/faults failed"
        self.pause(3, 10)
        origin.faults({"delayMs": 0})

    def master(self):
        port = self.soak.sentinel.master_port()
        return next((r for r in self.soak.redis if r.port == port), None)

    def redis_restart(self):
        master = self.master()
        if master is None:
            return "no master known to the sentinel"
        master.stop(signal.SIGKILL)
        self.pause(0.2, 3)
        master.start()

    def redis_pause(self):
        master = self.master()
        if master is None:
            return "no master known to the sentinel"
        master.send_signal(signal.SIGSTOP)
        try:
            self.pause(0.5, 4)
        finally:
            master.send_signal(signal.SIGCONT)

    def sentinel_failover(self):
        before = self.soak.sentinel.master_port()
        answer = self.soak.sentinel.cli("SENTINEL", "FAILOVER", "soak")
        if answer != "OK":
            self.soak.tally.add("sentinel failover refused by the sentinel", answer)
            return None
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.soak.sentinel.master_port() not in (None, before):
                return None
            time.sleep(0.1)
        return "the master did not move within 20 s"

    def sighup(self):
        proxy = self.rng.choice(self.soak.proxies)
        return None if proxy.reload() else f"{proxy.name}: no 'configuration reloaded' within 10 s"

    def takeover(self):
        proxy = self.rng.choice(self.soak.proxies)
        seconds, problem = proxy.takeover()
        self.soak.tally.add("takeover ms total", n=int(seconds * 1000))
        return f"{proxy.name}: {problem}" if problem else None

    def h2_flood(self):
        name = self.rng.choice(sorted(FLOODS))
        proxy = self.rng.choice(self.soak.proxies)
        command = [sys.executable, H2_ATTACKS, "--port", str(proxy.port), "--path", "/graphql", "--timeout", "10",
                   *FLOODS[name]]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=90)
        except subprocess.TimeoutExpired:
            return f"{name} on {proxy.name}: the attack client did not end within 90 s"
        if result.returncode != 0:
            return f"{name} on {proxy.name}: exit {result.returncode} {result.stderr[-200:]}"
        seen = json.loads(result.stdout.strip().splitlines()[-1])
        goaway = (seen.get("goaway") or {}).get("error", "none")
        self.soak.tally.add(f"h2 flood {name}: GOAWAY {goaway}")
        return None

    def cdn_down(self):
        recorder = self.soak.recorder
        recorder.stop(signal.SIGKILL)
        self.pause(1, 8)
        recorder.start()


class Soak:
    def __init__(self, args):
        self.args = args
        self.tally = Tally()
        self.folder = args.out
        os.makedirs(self.folder, exist_ok=True)
        self.tally.journal = open(os.path.join(self.folder, "soak-events.log"), "w")
        # Unix socket paths must stay short: the proxies' folder is a temporary one.
        self.run_folder = tempfile.mkdtemp(prefix="bw-soak-")
        self.parts = []
        self.samples = {}

    def log(self, text):
        print("soak: " + text, flush=True)

    def start(self):
        folder = self.run_folder
        self.origin = self.keep(Origin(self.args.binary, folder).start())
        master = self.keep(Redis("redis-a", folder).start())
        replica = self.keep(Redis("redis-b", folder, replica_of=master.port).start())
        self.redis = [master, replica]
        self.sentinel = self.keep(Sentinel(folder, master).start())
        self.recorder = self.keep(Recorder(folder).start())
        self.proxies = [Proxy(self.args.binary, name, folder, self.origin, self.sentinel, self.recorder)
                        for name in ("A", "B")]
        for proxy in self.proxies:
            proxy.start()
        self.log(f"origin :{self.origin.port}, redis :{master.port} (replica :{replica.port}), sentinel "
                 f":{self.sentinel.port}, cdn :{self.recorder.port}, " + ", ".join(
                     f"proxy {p.name} pid {p.pid} :{p.port} (admin :{p.admin})" for p in self.proxies))

    def keep(self, part):
        self.parts.append(part)
        return part

    def stop_all(self):
        for proxy in getattr(self, "proxies", []):
            if proxy.current:
                proxy.current.stop(signal.SIGKILL, wait=5)
        for part in reversed(self.parts):
            part.stop(signal.SIGKILL, wait=5)

    def sample(self, writer, started):
        row = ["%.1f" % (time.time() - started)]
        for proxy in self.proxies:
            figures = process_figures(proxy.pid) or (0, 0, 0)
            health = get(proxy.admin, "/healthz")[0]
            if health != 200:
                self.tally.add("health check failed", f"{proxy.name} pid {proxy.pid}: {health}")
            self.samples.setdefault(proxy.name, []).append((proxy.pid, *figures))
            row += [str(proxy.pid), *map(str, figures), str(health or 0)]
        counts = self.tally
        row += [str(counts.get("requests h1") + counts.get("requests h2")),
                str(sum(counts.prefixed("wrong ").values())), str(sum(counts.prefixed("error ").values())),
                str(sum(counts.prefixed("fault ").values()))]
        writer.write(",".join(row) + "\n")
        writer.flush()

    def watch(self):
        """Restarts a part that exited without being asked to, counting it as a crash."""
        for proxy in self.proxies:
            process = proxy.current
            if not process.alive() and not process.expected_exit:
                self.tally.add("crash " + proxy.name, f"pid {process.pid} exit {process.process.returncode}: "
                               + proxy.log_text()[-400:])
                proxy.start()
        for part in [self.origin, *self.redis, self.sentinel]:
            if part.process and not part.alive() and not part.expected_exit:
                self.tally.add("crash " + part.name, f"exit {part.process.returncode}")
                part.start()

    def run(self):
        args = self.args
        stop = threading.Event()
        workers = [Worker(protocol, self.proxies, self.tally, n, stop, args.rate)
                   for n, protocol in enumerate(["h1", "h2"] * args.workers)]
        workers += [UserWorker(n, self.proxies, self.origin.port, self.tally, stop, args.rate)
                    for n in range(args.users)]
        purger = Purger(self.proxies, self.tally, stop, 2.0)
        threads = [threading.Thread(target=w.run, daemon=True) for w in workers + [purger]]
        faults = Faults(self, args.mean_gap, args.seed)
        started = time.time()
        for thread in threads:
            thread.start()
        fault_thread = threading.Thread(target=faults.run, daemon=True)
        fault_thread.start()
        with open(os.path.join(self.folder, "soak.csv"), "w") as writer:
            writer.write("seconds," + ",".join(f"{p}_pid,{p}_rss_kb,{p}_fds,{p}_threads,{p}_healthz"
                                               for p in ("a", "b")) + ",requests,wrong,client_errors,faults\n")
            self.sample(writer, started)
            next_report = started + 60
            while time.time() - started < args.seconds:
                time.sleep(args.interval)
                self.watch()
                self.sample(writer, started)
                if time.time() >= next_report:
                    next_report += 60
                    self.log("%d s: %d requests, %d wrong, faults %s" % (
                        time.time() - started, self.tally.get("requests h1") + self.tally.get("requests h2"),
                        sum(self.tally.prefixed("wrong ").values()), dict(self.tally.prefixed("fault "))))
            self.log("faults stop; parts come back")
            faults.finish()
            time.sleep(3)  # the fleet settles: purge logs replayed, subscriptions back
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
            self.watch()
            self.sample(writer, started)
        self.elapsed = time.time() - started

    def settle(self):
        """Waits until neither proxy holds a purge for Redis or the CDN (60 s at most)."""
        deadline = time.time() + 60
        while time.time() < deadline:
            pending = 0
            for proxy in self.proxies:
                samples = proxy.metrics()
                if samples is None:
                    pending += 1
                    continue
                pending += metric(samples, "breakwater_cdn_queued") + metric(samples, "breakwater_redis_purges_pending")
            if pending == 0:
                return True
            time.sleep(0.5)
        return False

    def finish(self):
        tally = self.tally
        settled = self.settle()
        figures = {}
        for proxy in self.proxies:
            samples = proxy.metrics() or {}
            figures[proxy.name] = {
                "lost": metric(samples, "breakwater_cdn_lost_total"),
                "failed": metric(samples, "breakwater_cdn_purges_total", result="failed"),
                "sent": metric(samples, "breakwater_cdn_purges_total", result="sent"),
                "pending": metric(samples, "breakwater_redis_purges_pending"),
                "reloads": metric(samples, "breakwater_config_reloads_total"),
            }
        # Every purge acknowledged must have reached the CDN: a call after it naming its tag, its
        # type's tag, or everything. A call in flight is not queued: the last ones get 15 s more.
        with tally.lock:
            acked = list(tally.acked)
        deadline = time.time() + 15
        while True:
            calls = self.recorder.purges()
            latest = {}  # tag (or "*" for everything) -> the last time a call named it
            for at, tags, everything in calls:
                for tag in tags | ({"*"} if everything else set()):
                    latest[tag] = max(at, latest.get(tag, 0))
            lost = []
            for moment, tag, proxy in acked:
                reached = max(latest.get(tag, 0), latest.get(tag.split(":")[0], 0), latest.get("*", 0))
                if reached < moment - 0.01:
                    lost.append(f"{tag} acknowledged by {proxy} at {moment:.3f}")
            if not lost or time.time() > deadline:
                break
            time.sleep(1)
        with open(os.path.join(self.folder, "cdn-calls.log"), "w") as file:
            for at, tags, everything in calls:
                file.write("%.3f %s%s\n" % (at, " ".join(sorted(tags)), " (everything)" if everything else ""))
        for line in lost[:5]:
            tally.add("purge never reached the CDN", line)
        stopped = {}
        for proxy in self.proxies:
            stopped[proxy.name] = proxy.current.stop(signal.SIGTERM, wait=30)
        processes = [(p.name, process, status) for p in self.proxies
                     for process, status in p.retired + [(p.current, stopped[p.name])]]
        logged_lost = logged_failed = 0
        for name, process, status in processes:
            text = open(process.log).read()
            logged_failed += text.count("cdn purge failed")
            logged_lost += sum(int(n) for n in re.findall(r"cdn purges lost at stop.*?cdn\.purges=(\d+)", text))
            if status != 0:
                tally.add("proxy exit not 0", f"{process.name} pid {process.pid}: {status}")
        return figures, lost, acked, calls, settled, logged_lost, logged_failed, processes

    def table(self, figures, lost, acked, calls, settled, logged_lost, logged_failed, processes):
        tally = self.tally
        rows = []
        must = []

        def row(name, value, must_be_zero=False):
            rows.append((name, value, "must be 0" if must_be_zero else ""))
            if must_be_zero and value not in (0, "0"):
                must.append(name)

        minutes = self.elapsed / 60
        h1, h2 = tally.get("requests h1"), tally.get("requests h2")
        row("requests: HTTP/1.1 / HTTP/2 / admin", f"{h1:,} / {h2:,} / {tally.get('requests admin'):,}"
            f"  ({(h1 + h2) / self.elapsed:.0f}/s over {minutes:.1f} min)")
        row("requests sent again on a new connection (RFC 9112 9.3.1, RFC 9113 6.8)",
            f"{tally.get('retried h1')} h1, {tally.get('retried h2')} h2")
        for kind in ("body", "user", "purged", "status"):
            row(f"wrong answers: {kind}", tally.get("wrong " + kind), True)
        row("purge checks passed / state changes acknowledged",
            f"{tally.get('purge checks passed'):,} / {tally.get('state changes acknowledged'):,}")
        samples = tally.get("propagation samples")
        if samples:
            row("state change seen on the other proxy, mean", "%.0f ms over %d" % (
                tally.get("propagation ms total") / samples, samples))
        for key, value in sorted(tally.prefixed("old state").items()):
            row("old state" + key, value)
        row("purge checks skipped (origin restarted, state unknown)",
            tally.get("purge checks skipped (origin restarted, state unknown)"))
        errors = tally.prefixed("error ")
        row("client errors: connection refused", errors.get("refused", 0), True)
        for cause in sorted(errors):
            if cause != "refused":
                row(f"client errors: {cause}", errors[cause])
        for cause, count in sorted(tally.prefixed("origin error ").items()):
            row(f"errors of the changes sent straight to the origin: {cause}", count)
        note = tally.get("h2 client refused an answer after GOAWAY (python h2)")
        if note:
            row("h2 client refused an answer after GOAWAY (python h2; sent again or counted above)", note)
        row("proxy crashes, failed health checks, exits not 0",
            sum(tally.prefixed("crash ").values()) + tally.get("health check failed") + tally.get("proxy exit not 0"),
            True)
        for name in [p.name for p in self.proxies]:
            series = self.samples.get(name, [])
            if series:
                first, last = series[0], series[-1]
                row(f"proxy {name}: RSS / fds at start (pid {first[0]}) -> end (pid {last[0]})",
                    f"{first[1] / 1024:.1f} MiB / {first[2]} -> {last[1] / 1024:.1f} MiB / {last[2]}"
                    f"  (max {max(s[1] for s in series) / 1024:.1f} MiB / {max(s[2] for s in series)})")
        for kind in Faults(self, 1, 0).kinds:
            done = tally.get("fault " + kind)
            problems = tally.get("fault problem " + kind)
            row(f"faults: {kind}", f"{done}" + (f" ({problems} failed to inject)" if problems else ""))
        floods = tally.prefixed("h2 flood ")
        if floods:
            row("h2 floods, what each got", ", ".join(f"{name} x{count}" for name, count in sorted(floods.items())))
        refused = tally.get("sentinel failover refused by the sentinel")
        if refused:
            row("faults: sentinel failover refused by the sentinel (not counted)", refused)
        row("purges acknowledged / CDN calls received", f"{len(acked):,} / {len(calls):,}")
        row("purges lost: acknowledged, never received by the CDN", len(lost), True)
        row("purges lost: breakwater_cdn_lost_total + 'lost at stop' of replaced processes",
            int(sum(f["lost"] for f in figures.values())) + logged_lost, True)
        row("purges lost: CDN calls given up (cdn_purges_total failed, all processes' logs)",
            max(int(sum(f["failed"] for f in figures.values())), logged_failed), True)
        row("purges still pending for Redis or the CDN after 60 s", 0 if settled else "yes", True)
        row("proxy processes (takeovers included), each exit status",
            ", ".join(f"{name} {p.pid}: {status}" for name, p, status in processes))
        width = max(len(r[0]) for r in rows)
        lines = [f"{'':{width}}  value", "-" * (width + 40)]
        lines += [f"{name:{width}}  {value}{'   (' + note + ')' if note else ''}" for name, value, note in rows]
        examples = [f"  {key}: {example}" for key, items in sorted(tally.examples.items())
                    if key.startswith(("wrong", "error", "crash", "fault problem", "purge never", "proxy exit",
                                       "health", "soak exception", "admin purge failed", "old state"))
                    for example in items[:3]]
        if examples:
            lines += ["", "examples:"] + examples
        lines += ["", "verdict: " + ("FAIL: " + "; ".join(must) if must else "PASS (every must-be-0 row is 0)")]
        return "\n".join(lines), not must


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--mean-gap", type=float, default=0, help="mean seconds between faults (default: by length)")
    parser.add_argument("--rate", type=float, default=8, help="requests per second of each client thread")
    parser.add_argument("--workers", type=int, default=3, help="shared client threads per protocol")
    parser.add_argument("--users", type=int, default=6, help="simulated users checking purges")
    parser.add_argument("--interval", type=float, default=5, help="seconds between samples")
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    args.binary = os.path.abspath(args.binary)
    args.out = os.path.abspath(args.out)
    if not args.mean_gap:
        args.mean_gap = 8 if args.seconds <= 600 else 20
    soak = Soak(args)

    def terminate(number, _frame):
        soak.stop_all()
        sys.exit(128 + number)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    try:
        soak.log(f"{args.binary}, {args.seconds} s, faults every {args.mean_gap:g} s on average, seed {args.seed}")
        soak.start()
        soak.run()
        text, passed = soak.table(*soak.finish())
    finally:
        soak.stop_all()
    with open(os.path.join(args.out, "soak-summary.txt"), "w") as file:
        file.write(text + "\n")
    print(text, flush=True)
    for name in os.listdir(soak.run_folder):
        if name.endswith(".log"):
            os.replace(os.path.join(soak.run_folder, name), os.path.join(args.out, name))
    shutil.rmtree(soak.run_folder, ignore_errors=True)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
