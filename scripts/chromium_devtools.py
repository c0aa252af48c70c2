"""Headless Chromium driven through its DevTools protocol, over a WebSocket written here with the
standard library alone: what scripts/browser-protocol.py and scripts/dashboard-layout.py share.

    with chromium_page(url, flags) as page:
        value = evaluate(page, "document.title")
"""

import base64
import contextlib
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request


class WebSocket:
    """A client WebSocket (RFC 6455): text frames only, enough for the DevTools protocol."""

    def __init__(self, url):
        rest = url.split("://", 1)[1]
        hostport, path = rest.split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                "GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, hostport, key)
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("DevTools closed the WebSocket handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError("DevTools refused the WebSocket: %r" % head[:200])
        self.buffer = head.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _exactly(self, count):
        while len(self.buffer) < count:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("DevTools closed the WebSocket")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            header = struct.pack(">BB", 0x81, 0x80 | length)
        elif length < 65536:
            header = struct.pack(">BBH", 0x81, 0x80 | 126, length)
        else:
            header = struct.pack(">BBQ", 0x81, 0x80 | 127, length)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self):
        message = b""
        while True:
            first, second = self._exactly(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._exactly(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._exactly(8))[0]
            payload = self._exactly(length)
            opcode = first & 0x0F
            if opcode == 0x8:
                raise RuntimeError("DevTools closed the WebSocket")
            if opcode in (0x9, 0xA):  # ping / pong: not sent by DevTools in practice
                continue
            message += payload
            if first & 0x80:
                return message.decode()

    def call(self, method, **params):
        """Sends one DevTools command and returns its result, skipping events."""
        self.next_id += 1
        self.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            answer = json.loads(self.receive())
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError("%s: %s" % (method, answer["error"]))
                return answer.get("result", {})


def evaluate(page, expression):
    result = page.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True)
    if "exceptionDetails" in result:
        raise RuntimeError("page script failed: %s" % result["exceptionDetails"])
    return result["result"].get("value")


@contextlib.contextmanager
def chromium_page(url, flags=()):
    """A headless Chromium with `flags`, its one page loaded at `url` (navigation complete); the
    browser and its profile are gone when the block ends."""
    profile = tempfile.mkdtemp(prefix="bw-chromium-")
    command = [
        "chromium", "--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
        "--user-data-dir=" + profile, "--remote-debugging-port=0",
    ] + (["--no-sandbox"] if os.getuid() == 0 else []) + list(flags) + ["about:blank"]
    browser = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + 30
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if time.monotonic() > deadline or browser.poll() is not None:
                raise RuntimeError("Chromium did not open its DevTools port")
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10))
        page_target = next(t for t in targets if t.get("type") == "page")
        page = WebSocket(page_target["webSocketDebuggerUrl"])
        page.call("Page.navigate", url=url)
        deadline = time.monotonic() + 30
        while evaluate(page, "location.href + ' ' + document.readyState") != url + " complete":
            if time.monotonic() > deadline:
                raise RuntimeError("the page did not load: %s" % evaluate(page, "location.href + ' ' + document.readyState"))
            time.sleep(0.1)
        yield page
    finally:
        browser.terminate()
        try:
            browser.wait(timeout=10)
        except subprocess.TimeoutExpired:
            browser.kill()
            browser.wait()
        subprocess.run(["rm", "-rf", profile])


def run(main):
    """Exits with `main(arguments)`'s status; a failure to drive Chromium is printed as one JSON
    line, {"error": ...}, and exits 1."""
    try:
        sys.exit(main(sys.argv[1:]))
    except RuntimeError as error:
        print(json.dumps({"error": str(error)}))
        sys.exit(1)
