#!/usr/bin/env python3
"""Soak traffic for scripts/soak.sh: mixed requests at a modest rate, and a sampler of the
proxy's RSS and fds (from /proc) and its /stats, written as CSV. Standard library only."""
import argparse, hashlib, http.client, json, os, random, threading, time, urllib.parse

LAUNCHES = "query GetLaunches($pageSize: Int) { launches(pageSize: $pageSize) { cursor hasMore launches { id site } } }"
LAUNCH = "query GetLaunch($id: ID!) { launch(id: $id) { id site mission { name } } }"
BOOK = "mutation Book($ids: [ID]!) { bookTrips(launchIds: $ids) { success message launches { id isBooked } } }"

class Driver:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.counts = {}
        self.registered = []
        self.serial = 0
        self.stop = time.monotonic() + args.seconds

    def count(self, key):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + 1

    def next_serial(self):
        with self.lock:
            self.serial += 1
            return self.serial

    def request(self, connection, method, target, body=None, headers=None, port=None):
        headers = dict(headers or {})
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status, response.getheader("X-Cache") or "-"

    def one(self, connection, admin):
        r = random.random()
        if r < 0.45:
            kind = "hit"
            variables = json.dumps({"pageSize": random.randint(1, 5)})
            target = "/graphql?" + urllib.parse.urlencode({"query": LAUNCHES, "variables": variables})
            status, cache = self.request(connection, "GET", target)
        elif r < 0.65:
            kind = "miss"
            body = json.dumps({"query": LAUNCH, "variables": {"id": str(random.randint(1, 10**9))}})
            status, cache = self.request(connection, "POST", "/graphql", body)
        elif r < 0.75:
            kind = "register"
            document = "query R%d { launch(id: \"%d\") { id site } }" % (self.next_serial(), random.randint(1, 100))
            digest = hashlib.sha256(document.encode()).hexdigest()
            body = json.dumps({"query": document, "extensions": {"persistedQuery": {"version": 1, "sha256Hash": digest}}})
            status, cache = self.request(connection, "POST", "/graphql", body)
            with self.lock:
                self.registered.append(digest)
                del self.registered[:-500]
        elif r < 0.80:
            kind = "hashed-get"
            with self.lock:
                digest = random.choice(self.registered) if self.registered else "0" * 64
            extensions = json.dumps({"persistedQuery": {"version": 1, "sha256Hash": digest}})
            status, cache = self.request(connection, "GET", "/graphql?" + urllib.parse.urlencode({"extensions": extensions}))
        elif r < 0.85:
            kind = "mutation"
            body = json.dumps({"query": BOOK, "variables": {"ids": [str(random.randint(1, 20))]}})
            status, cache = self.request(connection, "POST", "/graphql", body)
        elif r < 0.88:
            kind = "purge"
            body = random.choice(['{"operation":"GetLaunch"}', '{"type":"Launch","id":"3"}', '{"all":true,"soft":true}'])
            status, cache = self.request(admin, "POST", "/purge", body)
        else:
            kind = "bad"
            choice = random.randint(0, 5)
            if choice == 0:
                status, cache = self.request(connection, "POST", "/graphql", '{"query": "{ launches { id }')
            elif choice == 1:
                body = json.dumps({"query": "{ me { id } }", "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ab" * 32}}})
                status, cache = self.request(connection, "POST", "/graphql", body)
            elif choice == 2:
                status, cache = self.request(connection, "GET", "/nowhere")
            elif choice == 3:
                body = json.dumps({"query": "{ launches { " + "id " * 50_000 + "} }"})
                status, cache = self.request(connection, "POST", "/graphql", body)
            elif choice == 4:
                status, cache = self.request(connection, "GET", "/graphql?query=%ZZ&&variables=[1")
            else:
                status, cache = self.request(connection, "DELETE", "/graphql")
        self.count("%s %d" % (kind, status))
        self.count("x-cache " + cache)

    def worker(self, share):
        interval = 1.0 / share
        connection = admin = None
        next_at = time.monotonic()
        while time.monotonic() < self.stop:
            try:
                if connection is None:
                    connection = http.client.HTTPConnection("127.0.0.1", self.args.port, timeout=10)
                    admin = http.client.HTTPConnection("127.0.0.1", self.args.admin_port, timeout=10)
                self.one(connection, admin)
            except Exception as error:  # a broken connection is counted and replaced
                self.count("client error " + type(error).__name__)
                connection = admin = None
            next_at += interval
            time.sleep(max(0.0, next_at - time.monotonic()))

    def sample(self, start, writer):
        pid = self.args.pid
        with open("/proc/%d/status" % pid) as f:
            status = dict(line.split(":", 1) for line in f if ":" in line)
        rss_kb = int(status["VmRSS"].split()[0])
        threads = int(status["Threads"].split()[0])
        fds = len(os.listdir("/proc/%d/fd" % pid))
        admin = http.client.HTTPConnection("127.0.0.1", self.args.admin_port, timeout=5)
        admin.request("GET", "/healthz")
        health = admin.getresponse()
        health.read()
        admin.request("GET", "/stats")
        stats = json.loads(admin.getresponse().read())
        admin.close()
        with self.lock:
            sent = sum(v for k, v in self.counts.items() if not k.startswith("x-cache"))
        writer.write("%.1f,%d,%d,%d,%d,%d,%d,%d,%d,%d\n" % (
            time.monotonic() - start, rss_kb, fds, threads, sent, health.status,
            stats["cache"]["entries"], stats["cache"]["bytes"], stats["apq"]["entries"], stats["requests"]))
        writer.flush()
        return rss_kb, fds, health.status

def main():
    parser = argparse.ArgumentParser()
    for name in ("port", "admin-port", "pid", "seconds", "rate"):
        parser.add_argument("--" + name, type=int, required=True)
    parser.add_argument("--interval", type=float, default=5)
    parser.add_argument("--csv", required=True)
    parser.add_argument("--summary", required=True)
    args = parser.parse_args()
    driver = Driver(args)
    workers = 4
    threads = [threading.Thread(target=driver.worker, args=(args.rate / workers,), daemon=True) for _ in range(workers)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    samples = []
    unhealthy = 0
    with open(args.csv, "w") as writer:
        writer.write("seconds,rss_kb,fds,threads,requests_sent,healthz,cache_entries,cache_bytes,apq_entries,proxy_requests\n")
        while time.monotonic() < driver.stop:
            try:
                rss, fds, health = driver.sample(start, writer)
                samples.append((rss, fds))
                unhealthy += health != 200
            except Exception as error:
                unhealthy += 1
                print("soak: sample failed:", error, flush=True)
            time.sleep(args.interval)
    for thread in threads:
        thread.join()
    rss = [s[0] for s in samples]
    fds = [s[1] for s in samples]
    n = len(samples)
    warm = rss[n // 10:] or rss
    half = rss[n // 2:] or rss
    lines = [
        "samples: %d over %d s, failed health checks: %d" % (n, args.seconds, unhealthy),
        "RSS KiB: first %d, after warm-up (10%%) %d, max %d, last %d; second half min %d max %d" % (
            rss[0], warm[0], max(rss), rss[-1], min(half), max(half)),
        "fds: first %d, min %d, max %d, last %d" % (fds[0], min(fds), max(fds), fds[-1]),
        "requests by kind and status:",
    ] + ["  %s: %d" % kv for kv in sorted(driver.counts.items())]
    with open(args.summary, "w") as f:
        f.write("\n".join(lines) + "\n")
    if unhealthy:
        raise SystemExit("soak: %d failed health checks" % unhealthy)

if __name__ == "__main__":
    main()
