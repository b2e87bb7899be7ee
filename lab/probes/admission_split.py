#!/usr/bin/env python3
"""How fast a namespace's OVERFLOW is admitted, with its items on one partition or spread.

Against a running `ordo server` (docs/benchmarks.md, "the admission rate on one partition"):
sets an admission rate on a namespace, enqueues N items in batches of 200 (all with one group
key, so on one partition, or without keys, spread by the producer), then samples the namespace's
topic stats every 0.5 s until nothing is in OVERFLOW, and prints the rate at which items left it.

    python3 lab/probes/admission_split.py http://127.0.0.1:7070 NAMESPACE keyed|spread [N] [RATE]
"""
import json
import sys
import time
import urllib.error
import urllib.request


def call(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    r = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(r, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def main(base, ns, keyed, n, rate):
    status, body = call(base, "PUT", f"/v1/namespaces/{ns}/policy", {"admissionRate": {"perSecond": rate, "burst": 4}})
    assert status == 200, (status, body)
    time.sleep(2)  # every instance's global store reads the policy (normally within a second)
    items = [{"topic": "t", "payload": f"p{i}", **({"groupKey": "g1"} if keyed else {})} for i in range(n)]
    start = time.time()
    for i in range(0, n, 200):
        status, body = call(base, "POST", f"/v1/namespaces/{ns}/items", {"items": items[i:i + 200]})
        assert status == 200, (status, body)
    samples = []  # (seconds, overflow, ready)
    while time.time() - start < 300:
        _, body = call(base, "GET", f"/v1/namespaces/{ns}/topics")
        topics = body.get("topics", [])
        overflow = sum(t.get("overflow", 0) for t in topics)
        ready = sum(t.get("ready", 0) for t in topics)
        samples.append((time.time() - start, overflow, ready))
        if overflow == 0 and ready >= n:
            break
        time.sleep(0.5)
    counted = [s for s in samples if s[1] + s[2] >= n]
    first, last = counted[0], counted[-1]
    left = first[1] - last[1]
    print(f"{ns} ({'one partition' if keyed else 'spread'}): {left} items left OVERFLOW in "
          f"{last[0] - first[0]:.1f} s: {left / max(last[0] - first[0], 0.1):.1f} items/s at a rate of {rate}/s")


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], a[1], a[2] == "keyed", int(a[3]) if len(a) > 3 else 400, float(a[4]) if len(a) > 4 else 40)
