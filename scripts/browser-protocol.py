"""Which protocol headless Chromium used for a GraphQL request, as the page itself reports it
(`performance.getEntries()`, Resource Timing's `nextHopProtocol`): "h2" for HTTP/2, "http/1.1".

Usage: browser-protocol.py URL CERT [CHROMIUM_FLAG ...]
  URL   a GraphQL GET on the server (https://localhost:PORT/graphql?query=...): Chromium opens it,
        then POSTs to the same path from that page (same origin, so nextHopProtocol is visible)
  CERT  the server's self-signed certificate, trusted by its public key for this run only

Prints one JSON line: {"navigation": <protocol of the GET>, "fetch": <protocol of the POST>,
"status": <the POST's status>, "body": <its first 200 characters>}. Drives Chromium through its
DevTools protocol (scripts/chromium_devtools.py).
"""

import base64
import hashlib
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in scripts/
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chromium_devtools import chromium_page, evaluate, run  # noqa: E402


def spki_hash(certificate):
    """The base64 SHA-256 of the certificate's public key, for --ignore-certificate-errors-spki-list."""
    pem = subprocess.run(
        ["openssl", "x509", "-in", certificate, "-pubkey", "-noout"], check=True, capture_output=True
    ).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pem, check=True, capture_output=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    url, certificate, extra = argv[0], argv[1], argv[2:]
    with chromium_page(url, ["--ignore-certificate-errors-spki-list=" + spki_hash(certificate)] + extra) as page:
        script = """(async () => {
            const path = location.pathname;
            const answer = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"},
                                             body: JSON.stringify({query: "{ __typename }"})});
            const body = await answer.text();
            const fetched = performance.getEntriesByType("resource").filter(e => e.initiatorType === "fetch");
            return JSON.stringify({navigation: performance.getEntries()[0].nextHopProtocol,
                                   fetch: fetched.length ? fetched[fetched.length - 1].nextHopProtocol : null,
                                   status: answer.status, body: body.slice(0, 200)});
        })()"""
        print(evaluate(page, script))
    return 0


if __name__ == "__main__":
    run(main)
