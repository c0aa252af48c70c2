#!/usr/bin/env python3
# Sends exactly N HTTP/1.1 requests over one keep-alive connection and checks each answer's
# status: the fixed workload of bench/callgrind.sh (instruction counts per request need a known
# request count, which wrk's time-based runs cannot give).
# Usage: fixed_requests.py HOST:PORT N METHOD TARGET [BODY_FILE] [HEADER...]
#   A BODY_FILE holding @ID@ gets a distinct number there in every request (distinct cache keys),
#   counted from FIXED_REQUESTS_FIRST_ID (default 1000000; keep it at 7 digits so that every
#   body has the same length).
#   FIXED_REQUESTS_CLOSE=1 sends each request on a connection of its own, with
#   `Connection: close`, and reads its answer to the end (the churn workload).
import os
import socket
import sys


def read_answer(sock, pending):
    while b"\r\n\r\n" not in pending:
        chunk = sock.recv(65536)
        if not chunk:
            raise SystemExit("connection closed mid-answer")
        pending += chunk
    head, _, rest = pending.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise SystemExit("connection closed mid-body")
        rest += chunk
    return status, rest[length:]


def main():
    hostport, count, method, target = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    body_template = b""
    headers = []
    rest = sys.argv[5:]
    if rest and not ":" in rest[0].split("=")[0] and rest[0] != "-":
        with open(rest[0], "rb") as f:
            body_template = f.read()
        rest = rest[1:]
    elif rest and rest[0] == "-":
        rest = rest[1:]
    headers = [h.encode() for h in rest]
    first_id = int(os.environ.get("FIXED_REQUESTS_FIRST_ID", "1000000"))
    close_each = os.environ.get("FIXED_REQUESTS_CLOSE") == "1"
    if close_each:
        headers.append(b"Connection: close")
    host, port = hostport.rsplit(":", 1)

    def connect():
        made = socket.create_connection((host, int(port)))
        made.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return made

    sock = None if close_each else connect()
    pending = b""
    bad = 0
    for i in range(count):
        body = body_template.replace(b"@ID@", str(first_id + i).encode()) if body_template else b""
        head = [f"{method} {target} HTTP/1.1".encode(), b"Host: " + hostport.encode()] + headers
        if body:
            head += [b"Content-Type: application/json", b"Content-Length: " + str(len(body)).encode()]
        if close_each:
            sock, pending = connect(), b""
        sock.sendall(b"\r\n".join(head) + b"\r\n\r\n" + body)
        status, pending = read_answer(sock, pending)
        if status != 200:
            bad += 1
        if close_each:
            # The server closes after the answer: read to its end before the next connection.
            while sock.recv(65536):
                pass
            sock.close()
    if sock and not close_each:
        sock.close()
    if bad:
        raise SystemExit(f"{bad} of {count} answers were not 200")


main()
