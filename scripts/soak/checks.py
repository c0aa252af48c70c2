"""The soak's clients (scripts/soak.sh): HTTP/1.1 (http.client) and HTTP/2 (httpx, h2c) requests
to both proxies, each answer checked against its request.

Wrong answers, by kind (each must stay 0):
  body        the answer is not the one asked for: another launch's id, another page size, an
              alias holding another variable's launch, a 200 without data
  user        a per-user answer (`me`, `GetBooked`) that belongs to another user
  purged      a value served after its purge was acknowledged: on the proxy that purged at once;
              on the other proxy past the fleet's bound (docs/FLEET.md: a purge reaches every
              proxy within a second); except while a Redis fault (restart, pause, failover) is
              under way and 3 s after it ended, which FLEET.md allows (answers from before the
              purge while Redis is away, the last purges a failover lost), counted apart
  status      a status the request cannot get (a 4xx for a good request, a 200 for a bad one)

Client errors are classified by cause (refused, reset, timeout, each 5xx status); a refused
connection is always the proxy's failure, since a takeover and a reload keep the sockets open."""

import hashlib
import http.client
import json
import os
import random
import socket
import sys
import threading
import time
import urllib.parse

import httpx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Tests", "fixtures"))
from checking_load import request_for  # noqa: E402  (GetLaunchDetail / GetLaunches GETs and their checks)

ECHO = "query Echo($a: ID!, $b: ID!) { a: launch(id: $a) { id } b: launch(id: $b) { id } }"
ME = "query Me { me { id email } }"
BOOKED = "query GetBooked($id: ID!) { launch(id: $id) { id isBooked } }"
BOOK = "mutation Book($ids: [ID]!) { bookTrips(launchIds: $ids) { success launches { id } } }"
CANCEL = "mutation Cancel($id: ID!) { cancelTrip(launchId: $id) { success launches { id } } }"
FLEET_BOUND = 1.0  # docs/FLEET.md: "purges of every kind reach every proxy ... within a second"
REDIS_GAP_NOTICED = 3.0  # a gap is looked at once a second; a proxy may need two checks to see it


def user_id(email):
    """The demo origin's id for an email (FNV-1a, Sources/BreakwaterDemoOrigin/Schema/LaunchesContext.swift)."""
    value = 0xcbf29ce484222325
    for byte in email.encode():
        value = ((value ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return "user-%016x" % value


def authorization(email):
    import base64
    return "Bearer " + base64.b64encode(email.encode()).decode()


class Tally:
    """Everything counted, by kind, with a few examples of each."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = {}
        self.examples = {}
        self.faults = []  # (kind, start, end or None)
        self.origin_epoch = 0  # raised before each origin restart: its bookings are lost then
        self.acked = []  # (time, tag or "*", proxy name): purges whose answer said done
        self.journal = None  # a file every counted detail is written to, when set

    def add(self, key, detail=None, n=1):
        with self.lock:
            self.counts[key] = self.counts.get(key, 0) + n
            if detail is not None and len(self.examples.setdefault(key, [])) < 5:
                self.examples[key].append("%.1f %s" % (time.time(), detail[:300]))
            if detail is not None and self.journal is not None:
                self.journal.write("%.3f %s: %s\n" % (time.time(), key, detail))
                self.journal.flush()

    def get(self, key):
        with self.lock:
            return self.counts.get(key, 0)

    def prefixed(self, prefix):
        with self.lock:
            return {k[len(prefix):]: v for k, v in self.counts.items() if k.startswith(prefix)}

    def fault_started(self, kind, detail=""):
        with self.lock:
            self.faults.append([kind, time.time(), None])
            if self.journal is not None:
                self.journal.write("%.3f fault %s starts %s\n" % (time.time(), kind, detail))
            return len(self.faults) - 1

    def fault_ended(self, index):
        with self.lock:
            self.faults[index][2] = time.time()
            if self.journal is not None:
                self.journal.write("%.3f fault %s ends\n" % (time.time(), self.faults[index][0]))

    def fault_near(self, kinds, start, end, margin=0.0):
        """Of the faults of `kinds` whose window (+margin) overlaps [start, end], the (start, end) of
        the one that ends last (end None while it is under way); None when there is none."""
        found = None
        with self.lock:
            for kind, began, ended in self.faults:
                if kind in kinds and began - margin <= end and (ended is None or ended + margin >= start):
                    if found is None or ended is None or (found[1] is not None and ended > found[1]):
                        found = (began, ended)
        return found

    def purge_acked(self, tags, proxy):
        now = time.time()
        with self.lock:
            self.acked.extend((now, tag, proxy) for tag in tags)


class Client:
    """One connection per proxy and protocol: `h1` (http.client) or `h2` (httpx, prior knowledge)."""

    def __init__(self, protocol, port, tally, timeout=10, counted="error "):
        self.protocol, self.port, self.tally, self.timeout = protocol, port, tally, timeout
        self.counted = counted  # the prefix errors are counted under
        self.connection = None
        self.reused = False

    def close(self):
        if self.connection is not None:
            self.connection.close()
        self.connection = None

    def _once(self, method, target, body, headers):
        if self.connection is None:
            self.reused = False
            if self.protocol == "h1":
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
            else:
                self.connection = httpx.Client(http1=False, http2=True, timeout=self.timeout,
                                               base_url=f"http://127.0.0.1:{self.port}")
        if self.protocol == "h1":
            self.connection.request(method, target, body=body, headers=headers)
            response = self.connection.getresponse()
            data = response.read()
            answer = (response.status, {k.lower(): v for k, v in response.getheaders()}, data)
            if (response.getheader("Connection") or "").lower() == "close":
                self.close()
        else:
            response = self.connection.request(method, target, content=body, headers=headers)
            answer = (response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.content)
        self.reused = True
        return answer

    def send(self, method, target, body=None, headers=None, retry=True):
        """(status, headers, body), or None after counting the error by cause. A request on a reused
        connection closed before any answer is sent again once (RFC 9112 9.3.1; RFC 9113 6.8 for
        streams a GOAWAY did not take), counted as `retried`."""
        headers = dict(headers or {})
        if body is not None:
            headers.setdefault("Content-Type", "application/json")
            body = body.encode() if isinstance(body, str) else body
        if self.counted == "error ":
            self.tally.add("requests " + self.protocol)
        for attempt in (1, 2):
            reused = self.reused and self.connection is not None
            try:
                return self._once(method, target, body, headers)
            except Exception as error:  # classified below
                self.close()
                cause = cause_of(error)
                if isinstance(error, httpx.LocalProtocolError):
                    # python h2 takes a GOAWAY as the connection's end and refuses the answers
                    # still coming on streams the GOAWAY took (RFC 9113 6.8 lets them finish).
                    self.tally.add("h2 client refused an answer after GOAWAY (python h2)", repr(error))
                if cause == "closed" and reused and attempt == 1 and retry:
                    self.tally.add("retried " + self.protocol)
                    continue
                if cause == "closed":
                    cause = "reset"
                if cause != "refused" and self.counted == "error ":
                    cause += during_origin_fault(self.tally)
                self.tally.add(self.counted + cause, f"{self.protocol} :{self.port} {method} {target[:80]}: {error!r}")
                if cause == "refused":
                    time.sleep(0.05)
                return None
        return None


def cause_of(error):
    text = repr(error)
    if isinstance(error, ConnectionRefusedError) or "Connection refused" in text or "Errno 111" in text:
        return "refused"
    if isinstance(error, (socket.timeout, TimeoutError, httpx.TimeoutException)):
        return "timeout"
    if isinstance(error, (http.client.RemoteDisconnected, BrokenPipeError, httpx.RemoteProtocolError,
                          httpx.LocalProtocolError)):
        return "closed"  # closed before an answer: sent again once when the connection was reused
    if isinstance(error, (ConnectionResetError, httpx.ReadError, httpx.WriteError, http.client.HTTPException,
                          OSError)):
        return "reset"
    return "other " + type(error).__name__


def during_origin_fault(tally):
    """How a client error is told apart: while the origin was restarting or slow (or within
    origin.timeout + 1 s after, for requests that reached it then), during a takeover (a request
    that cannot be sent again, a mutation, on a keep-alive connection the old process closed as
    it arrived), or neither."""
    now = time.time()
    if tally.fault_near(("origin restart", "origin slowdown"), now, now, 4):
        return " (origin fault)"
    if tally.fault_near(("takeover",), now, now, 1):
        return " (takeover)"
    return " (no origin fault, no takeover)"


def data_of(body):
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value.get("data") if isinstance(value, dict) else None


class Worker:
    """Shared traffic: cached GETs, two-variable POSTs, APQ, `me` of many users, mutations, bad
    requests, each to a proxy drawn per request, over this worker's protocol."""

    def __init__(self, protocol, proxies, tally, seed, stop, rate):
        self.protocol, self.proxies, self.tally, self.stop, self.rate = protocol, proxies, tally, stop, rate
        self.rng = random.Random(seed)
        self.clients = {}
        self.users = ["shared-%d@soak.example" % n for n in range(40)]
        self.registered = []

    def client(self, proxy):
        if proxy.name not in self.clients:
            self.clients[proxy.name] = Client(self.protocol, proxy.port, self.tally)
        return self.clients[proxy.name]

    def run(self):
        next_at = time.monotonic()
        while not self.stop.is_set():
            proxy = self.rng.choice(self.proxies)
            try:
                self.one(proxy, self.client(proxy))
            except Exception as error:  # a bug of the soak itself: counted, never hidden
                self.tally.add("soak exception", repr(error))
            next_at += 1 / self.rate
            time.sleep(max(0.0, next_at - time.monotonic()))

    def wrong(self, kind, detail):
        self.tally.add("wrong " + kind, detail)

    def answered(self, answer, what):
        """True for a 200; a 5xx is a classified client error, another status a wrong answer."""
        if answer is None:
            return False
        status, headers, body = answer
        self.tally.add("x-cache " + headers.get("x-cache", "-"))
        if status == 200:
            return True
        if status >= 500:
            self.tally.add("error %d" % status + during_origin_fault(self.tally), f"{what}: {body[:160]!r}")
        else:
            self.wrong("status", f"{what}: {status} {body[:160]!r}")
        return False

    def one(self, proxy, client):
        r = self.rng.random()
        if r < 0.40:
            target, check = request_for(self.rng)
            answer = client.send("GET", target)
            if self.answered(answer, target[:60]):
                try:
                    good = check(json.loads(answer[2]))
                except (ValueError, AttributeError):
                    good = False
                if not good:
                    self.wrong("body", f"{target[:120]} -> {answer[2][:200]!r}")
        elif r < 0.60:
            a, b = str(self.rng.randint(1, 130)), str(self.rng.randint(1, 100))
            body = json.dumps({"query": ECHO, "operationName": "Echo", "variables": {"a": a, "b": b}})
            answer = client.send("POST", "/graphql", body)
            if self.answered(answer, "Echo"):
                data = data_of(answer[2]) or {}
                expect_a = {"id": a} if int(a) <= 100 else None
                if data.get("a") != expect_a or data.get("b") != {"id": b}:
                    self.wrong("body", f"Echo a={a} b={b} -> {answer[2][:200]!r}")
        elif r < 0.70:
            self.apq(client)
        elif r < 0.85:
            email = self.rng.choice(self.users)
            answer = client.send("POST", "/graphql", json.dumps({"query": ME, "operationName": "Me"}),
                                 {"Authorization": authorization(email)})
            if self.answered(answer, "Me"):
                me = (data_of(answer[2]) or {}).get("me")
                if me != {"id": user_id(email), "email": email}:
                    self.wrong("user", f"me as {email} -> {answer[2][:200]!r}")
        elif r < 0.90:
            email = self.rng.choice(self.users)
            ids = sorted({str(self.rng.randint(1, 100)) for _ in range(self.rng.randint(1, 3))}, key=int)
            answer = client.send("POST", "/graphql", json.dumps({"query": BOOK, "variables": {"ids": ids}}),
                                 {"Authorization": authorization(email)}, retry=False)
            if self.answered(answer, "Book"):
                booked = (data_of(answer[2]) or {}).get("bookTrips") or {}
                if booked.get("success") is not True or sorted(
                        (l or {}).get("id") for l in booked.get("launches") or []) != sorted(ids):
                    self.wrong("body", f"bookTrips {ids} -> {answer[2][:200]!r}")
                else:
                    self.tally.purge_acked(["Launch:" + i for i in ids], proxy.name)
        else:
            kind = self.rng.randint(0, 2)
            if kind == 0:
                answer = client.send("POST", "/graphql", '{"query": "{ launches { id }')
            elif kind == 1:
                answer = client.send("GET", "/graphql?query=%ZZ&&variables=[1")
            else:
                body = json.dumps({"query": "{ me { id } }",
                                   "extensions": {"persistedQuery": {"version": 1, "sha256Hash": "ab" * 32}}})
                answer = client.send("POST", "/graphql", body)
            if answer is not None:
                self.tally.add("x-cache " + answer[1].get("x-cache", "-"))
                if answer[0] != 400:
                    self.wrong("status", f"bad request {kind} -> {answer[0]} {answer[2][:120]!r}")

    def apq(self, client):
        """A hashed GET of a registered document; an unknown hash is registered as Apollo does."""
        if not self.registered or self.rng.random() < 0.1:
            n = self.rng.randint(1, 400)
            document = "query Apq%d($id: ID!) { launch(id: $id) { id site } }" % n
            self.registered.append((document, hashlib.sha256(document.encode()).hexdigest()))
            del self.registered[:-50]
        document, digest = self.rng.choice(self.registered)
        launch = str(self.rng.randint(1, 100))
        extensions = {"persistedQuery": {"version": 1, "sha256Hash": digest}}
        target = "/graphql?" + urllib.parse.urlencode(
            {"variables": json.dumps({"id": launch}), "extensions": json.dumps(extensions)})
        answer = client.send("GET", target)
        if answer is not None and answer[0] == 200 and b"PERSISTED_QUERY_NOT_FOUND" in answer[2]:
            self.tally.add("apq not found, registered")
            body = json.dumps({"query": document, "variables": {"id": launch}, "extensions": extensions})
            answer = client.send("POST", "/graphql", body)
        if self.answered(answer, "APQ"):
            if ((data_of(answer[2]) or {}).get("launch") or {}).get("id") != launch:
                self.wrong("body", f"APQ {digest[:12]} id={launch} -> {answer[2][:200]!r}")


class UserWorker(Worker):
    """One simulated user: reads its own `me` and the booked state of three launches on both
    proxies, and now and then changes one (a mutation through a proxy, or straight at the origin
    followed by an admin purge), then checks no proxy serves the old state past its bound."""

    def __init__(self, n, proxies, origin_port, tally, stop, rate):
        super().__init__("h1", proxies, tally, 1000 + n, stop, rate)
        self.email = "user-%d@soak.example" % n
        self.auth = {"Authorization": authorization(self.email)}
        self.launches = [str(n * 3 + k + 1) for k in range(3)]
        self.known = {}  # launch -> (booked, acked at, proxy name, origin epoch)
        self.origin_port = origin_port
        self.both = {}

    def client(self, proxy, protocol=None):
        protocol = protocol or self.rng.choice(("h1", "h2"))
        key = (proxy.name, protocol)
        if key not in self.both:
            self.both[key] = Client(protocol, proxy.port, self.tally)
        return self.both[key]

    def one(self, proxy, client):
        launch = self.rng.choice(self.launches)
        if self.rng.random() < 0.15:
            answer = client.send("POST", "/graphql", json.dumps({"query": ME, "operationName": "Me"}), self.auth)
            if self.answered(answer, "Me"):
                me = (data_of(answer[2]) or {}).get("me")
                if me != {"id": user_id(self.email), "email": self.email}:
                    self.wrong("user", f"me as {self.email} -> {answer[2][:200]!r}")
            return
        before = [self.read(each, launch)[1] for each in self.proxies]  # both caches hold the state first
        if self.rng.random() < 0.25:
            self.change(launch, before)

    def read(self, proxy, launch, protocol=None):
        """Reads the booked state on `proxy`: (value or None, X-Cache, start time); checks it."""
        epoch = self.tally.origin_epoch
        started = time.time()
        answer = self.client(proxy, protocol).send("POST", "/graphql", json.dumps(
            {"query": BOOKED, "operationName": "GetBooked", "variables": {"id": launch}}), self.auth)
        if not self.answered(answer, "GetBooked"):
            return None, None, started
        found = (data_of(answer[2]) or {}).get("launch") or {}
        cache = answer[1].get("x-cache", "-")
        if found.get("id") != launch or not isinstance(found.get("isBooked"), bool):
            self.wrong("body", f"GetBooked {launch} as {self.email} -> {answer[2][:200]!r}")
            return None, cache, started
        known = self.known.get(launch)
        if known is None or known[3] != epoch or self.tally.origin_epoch != epoch:
            self.tally.add("purge checks skipped (origin restarted, state unknown)")
            return found["isBooked"], cache, started
        value, acked, purger, _, how = known
        if found["isBooked"] == value:
            self.tally.add("purge checks passed")
            return value, cache, started
        detail = (f"{self.email} launch {launch}: {'booked' if value else 'not booked'} since "
                  f"{started - acked:.3f}s (purged on {purger} {how}), {proxy.name} served the old state, X-Cache {cache} Age {answer[1].get('age')}")
        redis = ("redis restart", "redis pause", "sentinel failover")
        if proxy.name != purger and started - acked <= FLEET_BOUND:
            self.tally.add("old state on the other proxy within the fleet bound (1 s)")
            return found["isBooked"], cache, started
        # While Redis is away the proxies may serve what they hold (FLEET.md, "No purge lost":
        # STALE once a gap is noticed), and a failover may lose the last purges (FLEET.md,
        # "Sentinel"): allowed during such a fault and REDIS_GAP_NOTICED seconds after it.
        fault = self.tally.fault_near(redis, acked - (0 if proxy.name == purger else 2), started)
        if fault and (fault[1] is None or started <= fault[1] + REDIS_GAP_NOTICED):
            self.tally.add("old state during a Redis fault or within %g s of its end (FLEET.md)" % REDIS_GAP_NOTICED,
                           detail)
        elif proxy.name == purger:
            self.wrong("purged", "same proxy: " + detail)
        else:
            self.wrong("purged", "other proxy past the bound: " + detail)
        return found["isBooked"], cache, started

    def change(self, launch, before):
        known = self.known.get(launch)
        value = not known[0] if known and known[3] == self.tally.origin_epoch else True
        proxy = self.rng.choice(self.proxies)
        epoch = self.tally.origin_epoch
        self.known.pop(launch, None)  # unknown until acknowledged
        via_mutation = self.rng.random() < 0.5
        steps = [("Book", BOOK, {"ids": [launch]})] + ([] if value else [("Cancel", CANCEL, {"id": launch})])
        for name, query, variables in steps:
            body = json.dumps({"query": query, "variables": variables})
            if via_mutation:
                answer = self.client(proxy).send("POST", "/graphql", body, self.auth, retry=False)
            else:
                answer = Client("h1", self.origin_port, self.tally, counted="origin error ").send(
                    "POST", "/graphql", body, self.auth, retry=False)
            if not self.answered(answer, name):
                return
            result = next(iter((data_of(answer[2]) or {}).values()), None) or {}
            if result.get("success") is not True or [l.get("id") for l in result.get("launches") or []] != [launch]:
                self.wrong("body", f"{name} {launch} as {self.email} -> {answer[2][:200]!r}")
                return
        if via_mutation:
            self.tally.purge_acked(["Launch:" + launch], proxy.name)
        else:
            if not admin_purge(proxy, {"type": "Launch", "id": launch}, self.tally):
                return
        if self.tally.origin_epoch != epoch:
            return
        how = "by a mutation" if via_mutation else "by an admin purge"
        self.known[launch] = (value, time.time(), proxy.name, epoch,
                              how + ", X-Cache before: " + "/".join(str(c) for c in before))
        self.tally.add("state changes acknowledged")
        self.read(proxy, launch)
        other = next(p for p in self.proxies if p is not proxy)
        deadline = time.time() + 10
        while time.time() < deadline and not self.stop.is_set():
            seen, _, started = self.read(other, launch)
            if seen == value:
                self.tally.add("propagation samples")
                self.tally.add("propagation ms total", n=int((started - self.known[launch][1]) * 1000))
                break
            time.sleep(0.05)


def admin_purge(proxy, body, tally):
    """POST /purge on `proxy`'s admin listener; on 200 the purge counts as acknowledged."""
    from parts import post
    status, answer = post(proxy.admin, "/purge", body)
    tally.add("requests admin")
    if status != 200:
        tally.add("admin purge failed %s" % status, f"{proxy.name} {body}: {answer[:160]!r}")
        return False
    if body.get("all"):
        tags = ["*"]
    elif "operation" in body:
        tags = ["op:" + body["operation"]]
    else:
        tags = [body["type"] + (":" + body["id"] if "id" in body else "")]
    tally.purge_acked(tags, proxy.name)
    return True


class Purger:
    """Admin purges at random to a random proxy; most name a new operation, a tag no other purge
    sends, so that the CDN recorder must show each one."""

    def __init__(self, proxies, tally, stop, interval):
        self.proxies, self.tally, self.stop, self.interval = proxies, tally, stop, interval
        self.rng = random.Random(7)
        self.marks = 0

    def run(self):
        while not self.stop.wait(self.rng.expovariate(1 / self.interval)):
            r = self.rng.random()
            if r < 0.7:
                self.marks += 1
                body = {"operation": "SoakMark%d" % self.marks}
            elif r < 0.85:
                body = {"type": "Launch", "id": str(self.rng.randint(1, 100))}
            elif r < 0.95:
                body = {"operation": "GetLaunches"}
            else:
                body = {"all": True, "soft": True}
            admin_purge(self.rng.choice(self.proxies), body, self.tally)
