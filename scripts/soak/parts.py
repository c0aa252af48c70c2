"""The soak's parts, each a real process on loopback (scripts/soak.sh): the demo origin with its
test controls, a Redis master and replica watched by a Sentinel, a CDN purge API stand-in
(Tests/fixtures/cdn_api_recorder.py over TLS), and two Breakwater proxies sharing that Redis
through the Sentinel, each with HTTP/2, a handover socket for `run --takeover` and the CDN target.

Every part keeps its port across restarts, so a fault can take it down and bring it back."""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from restart import free_port, get, wait_for  # noqa: E402  (bench/restart.py)

RECORDER = os.path.join(ROOT, "Tests", "fixtures", "cdn_api_recorder.py")
MASTER_NAME = "soak"


def post(port, path, body, timeout=5):
    """A JSON POST on loopback: (status, body bytes), or (None, error text) when it failed."""
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except Exception as error:  # refused, reset, timeout: the caller classifies
        return None, repr(error).encode()


def redis_cli(port, *arguments):
    result = subprocess.run(["redis-cli", "-p", str(port), *arguments], capture_output=True, text=True, timeout=5)
    return result.stdout.strip()


class Process:
    """One child process, restartable with the same command line; its output appended to a log."""

    def __init__(self, name, command, log, env=None):
        self.name, self.command, self.log, self.env = name, command, log, env
        self.process = None
        self.expected_exit = False

    def start(self):
        self.expected_exit = False
        self.process = subprocess.Popen(self.command, stdout=open(self.log, "a"), stderr=subprocess.STDOUT,
                                        env=self.env, process_group=0)
        return self

    @property
    def pid(self):
        return self.process.pid if self.process else None

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def send_signal(self, number):
        if self.alive():
            os.kill(self.process.pid, number)

    def stop(self, number=signal.SIGTERM, wait=20):
        """Stops it; returns its exit status (None when it had to be killed)."""
        if not self.process:
            return None
        self.expected_exit = True
        if self.process.poll() is None:
            try:
                os.kill(self.process.pid, signal.SIGCONT)
                os.kill(self.process.pid, number)
                return self.process.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                return None
            except ProcessLookupError:
                pass
        return self.process.wait()


class Origin(Process):
    def __init__(self, binary, folder):
        self.port = free_port()
        super().__init__("origin", [binary, "demo", "--origin-only", "--test-controls", "--origin-listen",
                                    f"127.0.0.1:{self.port}", "--threads", "1", "--log-level", "warning"],
                         os.path.join(folder, "origin.log"))

    def start(self):
        super().start()
        wait_for(lambda: get(self.port, "/_demo/counters")[0] == 200, 30, "the demo origin")
        return self

    def faults(self, body):
        return post(self.port, "/_demo/faults", body)[0] == 200


class Redis(Process):
    """A redis-server without persistence; `replica_of` makes it a replica at its first start."""

    def __init__(self, name, folder, replica_of=None):
        self.port = free_port()
        self.folder = folder
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                   "no", "--daemonize", "no", "--dir", folder, "--dbfilename", f"{name}.rdb"]
        self.first_command = command + (["--replicaof", "127.0.0.1", str(replica_of)] if replica_of else [])
        self.restart_command = command
        super().__init__(name, self.first_command, os.path.join(folder, f"{name}.log"))

    def start(self):
        super().start()
        wait_for(lambda: self.cli("PING") == "PONG", 20, f"redis {self.name}")
        # Restarted later as a plain server: the Sentinel makes it a replica again if it must.
        self.command = self.restart_command
        return self

    def cli(self, *arguments):
        return redis_cli(self.port, *arguments)


class Sentinel(Process):
    def __init__(self, folder, master):
        self.port = free_port()
        config = os.path.join(folder, "sentinel.conf")
        with open(config, "w") as file:
            file.write(f"""port {self.port}
bind 127.0.0.1
daemonize no
dir {folder}
sentinel monitor {MASTER_NAME} 127.0.0.1 {master.port} 1
sentinel down-after-milliseconds {MASTER_NAME} 1000
sentinel failover-timeout {MASTER_NAME} 3000
sentinel parallel-syncs {MASTER_NAME} 1
""")
        super().__init__("sentinel", ["redis-server", config, "--sentinel"], os.path.join(folder, "sentinel.log"))

    def start(self):
        super().start()
        wait_for(lambda: self.master_port() is not None, 20, "the sentinel")
        return self

    def cli(self, *arguments):
        return redis_cli(self.port, *arguments)

    def master_port(self):
        try:
            lines = self.cli("SENTINEL", "get-master-addr-by-name", MASTER_NAME).split()
            return int(lines[1]) if len(lines) == 2 else None
        except Exception:
            return None


class Recorder(Process):
    """Tests/fixtures/cdn_api_recorder.py on a fixed port: every request it answers is kept with the
    time it was read here (`requests`, a list of (time, record))."""

    def __init__(self, folder):
        self.port = free_port()
        self.cert, self.key = os.path.join(folder, "cdn.pem"), os.path.join(folder, "cdn.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", self.key, "-out",
                        self.cert], check=True, capture_output=True)
        super().__init__("cdn", [sys.executable, RECORDER, self.cert, self.key, "--port", str(self.port)],
                         os.path.join(folder, "cdn.log"))
        self.requests = []
        self.lock = threading.Lock()

    def start(self):
        self.expected_exit = False
        self.process = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=open(self.log, "a"), text=True,
                                        process_group=0)
        line = self.process.stdout.readline()
        if "listening" not in line:
            raise SystemExit(f"soak: the CDN recorder did not start: {line!r}")
        threading.Thread(target=self.read, args=(self.process.stdout,), daemon=True).start()
        return self

    def read(self, stream):
        for line in stream:
            if line.startswith("request "):
                record = json.loads(line[len("request "):])
                with self.lock:
                    self.requests.append((time.time(), record))

    def purges(self):
        """(time, tags, all) of every purge call received, in order."""
        with self.lock:
            calls = list(self.requests)
        result = []
        for moment, record in calls:
            try:
                body = json.loads(record["body"] or "{}")
            except ValueError:
                body = {}
            result.append((moment, set(body.get("tags", [])), bool(body.get("all"))))
        return result


def proxy_config(name, folder, origin, sentinel, recorder, port, admin, rules_ttl=20):
    """One proxy's config.yaml; `rules_ttl` is what a SIGHUP reload changes."""
    return f"""server:
  listen: 127.0.0.1:{port}
  threads: 2
  http2: true
  drain_timeout: 10s
origin:
  url: http://127.0.0.1:{origin.port}/graphql
  timeout: 3s
persisted_queries:
  max_entries: 2000
  store: {name}.registry
cache:
  max_bytes: 4MiB
  stale_while_revalidate: 2s
  stale_if_error: 10s
  tag_header: Cache-Tag
  snapshot: {name}.snapshot
  rules:
    - operation: GetLaunches
      ttl: {rules_ttl}s
    - operation: GetLaunchDetail
      ttl: 30s
    - operation: Echo
      ttl: 10s
    - operation: Me
      ttl: 60s
      scope: per-user
    - operation: GetBooked
      ttl: 60s
      scope: per-user
admin:
  listen: 127.0.0.1:{admin}
  handover_socket: {name}.handover
redis:
  sentinels: ["127.0.0.1:{sentinel.port}"]
  master_name: {MASTER_NAME}
  timeout: 100ms
  signing_key: "soak-signing-key-0123456789abcdef"
cdn:
  targets:
    - kind: http
      url: https://127.0.0.1:{recorder.port}/purge
  batch_window: 50ms
  timeout: 2s
  retries: 10
logging:
  level: notice
  access_log: off
"""


class Proxy:
    """A Breakwater proxy: its config and the process serving it now (a takeover replaces it)."""

    def __init__(self, binary, name, folder, origin, sentinel, recorder):
        self.binary, self.name, self.folder = binary, name, folder
        self.parts = (origin, sentinel, recorder)
        self.port, self.admin = free_port(), free_port()
        self.config = os.path.join(folder, f"{name}.yaml")
        self.ttl = 20
        self.write_config()
        self.generation = 0
        self.current = None
        self.retired = []  # (process, exit status) of processes replaced by a takeover
        self.env = dict(os.environ, SSL_CERT_FILE=recorder.cert)

    def write_config(self):
        text = proxy_config(self.name, self.folder, *self.parts, self.port, self.admin, self.ttl)
        with open(self.config + ".new", "w") as file:
            file.write(text)
        os.replace(self.config + ".new", self.config)

    def process(self, extra=()):
        self.generation += 1
        log = os.path.join(self.folder, f"{self.name}.{self.generation}.log")
        return Process(f"{self.name}#{self.generation}", [self.binary, "run", "--config", self.config, *extra], log,
                       env=self.env)

    def start(self):
        self.current = self.process().start()
        wait_for(lambda: get(self.admin, "/readyz")[0] == 200, 60, f"proxy {self.name}")
        return self

    @property
    def pid(self):
        return self.current.pid

    def log_text(self, process=None):
        with open((process or self.current).log) as file:
            return file.read()

    def takeover(self):
        """`run --takeover` a new process; returns (seconds it took, problem or None)."""
        old = self.current
        new = self.process(["--takeover", os.path.join(self.folder, f"{self.name}.handover")]).start()
        started = time.time()
        while time.time() - started < 60:
            if "takeover: serving on inherited sockets" in self.log_text(new):
                break
            if not new.alive():
                return time.time() - started, f"new process exited {new.process.returncode}: " + \
                    self.log_text(new)[-300:]
            time.sleep(0.02)
        else:
            new.stop(signal.SIGKILL)
            return time.time() - started, "no takeover within 60 s"
        self.current = new
        old.expected_exit = True
        try:
            status = old.process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            old.process.kill()
            status = "killed: no exit within 40 s of the takeover"
        self.retired.append((old, status))
        return time.time() - started, None if status == 0 else f"old process exit status {status}"

    def reload(self):
        """Changes a TTL rule, then SIGHUP; True when the process logged the reload."""
        before = self.log_text().count("configuration reloaded")
        self.ttl = 21 if self.ttl == 20 else 20
        self.write_config()
        self.current.send_signal(signal.SIGHUP)
        deadline = time.time() + 10
        while time.time() < deadline:
            if self.log_text().count("configuration reloaded") > before:
                return True
            time.sleep(0.05)
        return False

    def metrics(self):
        """The /metrics samples as {name{labels}: value}."""
        status, body = get(self.admin, "/metrics", timeout=5)
        if status != 200:
            return None
        samples = {}
        for line in body.decode().splitlines():
            if line and not line.startswith("#"):
                key, _, value = line.rpartition(" ")
                try:
                    samples[key] = float(value)
                except ValueError:
                    pass
        return samples

    def stats(self):
        status, body = get(self.admin, "/stats", timeout=5)
        return json.loads(body) if status == 200 else None


def metric(samples, name, **labels):
    """The sum of `name`'s samples whose labels include `labels`."""
    total = 0.0
    for key, value in (samples or {}).items():
        base, _, rest = key.partition("{")
        if base != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', rest))
        if all(found.get(k) == v for k, v in labels.items()):
            total += value
    return total


def process_figures(pid):
    """(RSS KiB, open fds, threads) of a live process from /proc, or None."""
    try:
        with open(f"/proc/{pid}/status") as file:
            status = dict(line.split(":", 1) for line in file if ":" in line)
        return int(status["VmRSS"].split()[0]), len(os.listdir(f"/proc/{pid}/fd")), int(status["Threads"])
    except (OSError, KeyError, ValueError):
        return None
