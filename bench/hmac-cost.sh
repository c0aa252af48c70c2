#!/usr/bin/env bash
# The cost of `redis.signing_key` (docs/FLEET.md, "Trust boundary"): one HMAC-SHA256 code over a
# 1 KiB entry and an 84-byte framed Redis key, as the Redis tier computes it (COpenSSL's prepared
# pads), against OpenSSL's one-shot HMAC(). Prints CPU time per code (CLOCK_PROCESS_CPUTIME_ID, so
# other load on the machine does not count) and, when valgrind is installed, instructions per code
# from callgrind (whose CPU has no SHA extensions: OpenSSL's generic SHA-256, an upper bound).
#
# Environment: HMAC_COST_CODES (default 200000 codes timed).
set -euo pipefail
REPO_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CODES=${HMAC_COST_CODES:-200000}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

cat >"$WORK/hmac-cost.c" <<'C'
#include "shim.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

// mode 0: the loop alone; 1: the tier's prepared HMAC; 2: OpenSSL's HMAC().
int main(int argc, char **argv) {
    int mode = atoi(argv[1]);
    long codes = atol(argv[2]);
    unsigned char key[32], frame[4 + 80], payload[1024], message[sizeof frame + sizeof payload], out[32];
    unsigned int length, sum = 0;
    for (int i = 0; i < 32; i++) key[i] = (unsigned char)i;
    memset(frame, 'k', sizeof frame);
    for (int i = 0; i < 1024; i++) payload[i] = (unsigned char)(i * 7);
    memcpy(message, frame, sizeof frame);
    memcpy(message + sizeof frame, payload, sizeof payload);
    COpenSSL_hmac_sha256_key prepared;
    COpenSSL_hmac_sha256_prepare(&prepared, key, sizeof key);
    struct timespec start, end;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    for (long i = 0; i < codes; i++) {
        payload[0] = message[sizeof frame] = (unsigned char)i;
        if (mode == 1) COpenSSL_hmac_sha256(&prepared, frame, sizeof frame, payload, sizeof payload, out);
        else if (mode == 2) HMAC(EVP_sha256(), key, sizeof key, message, sizeof message, out, &length);
        else out[0] = payload[0];
        sum += out[0];
    }
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &end);
    double ns = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / codes;
    printf("%.0f ns %u\n", ns, sum);
    return 0;
}
C
cc -O2 -I"$REPO_DIR/Sources/COpenSSL" -Wno-deprecated-declarations -o "$WORK/hmac-cost" "$WORK/hmac-cost.c" -lcrypto

instructions() {  # mode codes -> instructions callgrind counted
    valgrind --tool=callgrind --callgrind-out-file="$WORK/cg" "$WORK/hmac-cost" "$1" "$2" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "| 1 KiB entry, one code | CPU ns | instructions (callgrind) |"
echo "|---|---|---|"
for mode in 1 2; do
    name=$([ "$mode" = 1 ] && echo "prepared pads (the Redis tier)" || echo "OpenSSL HMAC() one-shot")
    ns=$("$WORK/hmac-cost" "$mode" "$CODES" | cut -d' ' -f1)
    count="-"
    if command -v valgrind >/dev/null; then
        # The difference between 2,000 and 1,000 codes leaves out start-up and the loop's setup.
        count=$(( ($(instructions "$mode" 2000) - $(instructions "$mode" 1000)) / 1000 ))
    fi
    echo "| $name | $ns | $count |"
done
