"""The client side of bench/cdn.sh (docs/CDN.md, "Measured"): keep-alive HTTP/1.1 on loopback,
standard library only.

  latency VARNISH_PORT GET_PATH_TEMPLATE MUTATION_JSON_TEMPLATE COUNT IDS
      For each of COUNT rounds (launch ids cycling over IDS): make sure the detail of launch <id>
      is a Varnish HIT, send the mutation naming it through Varnish, then GET it through Varnish
      until it is a MISS. Prints the milliseconds from sending the mutation to that miss, and
      from the mutation's answer to it, one pair per line.
  purges ADMIN_PORT COUNT THREADS
      Sends COUNT purges by `Type:id` to the admin endpoint from THREADS connections and prints
      the seconds it took.
  varnish VARNISH_PORT COUNT
      Sends COUNT `PURGE` calls of one tag straight to Varnish on one connection and prints the
      seconds it took (the calls per second one Varnish absorbs, unbatched).
"""

import http.client
import sys
import threading
import time


def connection(port):
    return http.client.HTTPConnection("127.0.0.1", port, timeout=10)


def request(conn, method, path, body=None, headers=None):
    conn.request(method, path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    return response.status, response.getheader("X-Edge-Cache"), data


def latency(port, path_template, mutation_template, count, ids):
    conn = connection(port)
    for round_number in range(count):
        launch = str(1 + round_number % ids)
        path = path_template.replace("LAUNCH_ID", launch)
        for _ in range(50):
            status, edge, _ = request(conn, "GET", path)
            assert status == 200, status
            if edge == "HIT":
                break
        else:
            raise SystemExit(f"launch {launch} never became a Varnish hit")
        body = mutation_template.replace("LAUNCH_ID", launch).encode()
        sent = time.perf_counter()
        status, _, _ = request(
            conn, "POST", "/graphql", body,
            {"Content-Type": "application/json", "Authorization": "bench@example.com"})
        assert status == 200, status
        answered = time.perf_counter()
        while True:
            status, edge, _ = request(conn, "GET", path)
            if edge == "MISS":
                break
            if time.perf_counter() - sent > 10:
                raise SystemExit(f"launch {launch} stayed in Varnish for 10 s")
        gone = time.perf_counter()
        print(f"{(gone - sent) * 1000:.3f} {(gone - answered) * 1000:.3f}", flush=True)


def purges(port, count, threads):
    per_thread = count // threads

    def run(offset):
        conn = connection(port)
        for i in range(per_thread):
            body = '{"type":"Launch","id":"bench-%d"}' % (offset * per_thread + i)
            status, _, _ = request(conn, "POST", "/purge", body.encode(), {"Content-Type": "application/json"})
            assert status == 200, status

    start = time.perf_counter()
    workers = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    print(f"{time.perf_counter() - start:.3f}")


def varnish(port, count):
    conn = connection(port)
    start = time.perf_counter()
    for i in range(count):
        status, _, _ = request(conn, "PURGE", "/", None, {"xkey-purge": f"Launch:direct-{i}"})
        assert status == 200, status
    print(f"{time.perf_counter() - start:.3f}")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "latency":
        latency(int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
    elif mode == "purges":
        purges(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif mode == "varnish":
        varnish(int(sys.argv[2]), int(sys.argv[3]))
