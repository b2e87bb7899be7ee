#!/usr/bin/env python3
"""A Celery app with Ordo's SQS endpoint as its broker (kombu's SQS transport, pycurl).

Worker:  ORDO_SQS=http://127.0.0.1:9324 CELERY_RUN_DIR=/tmp/run python3 -m celery -A celery_app worker --pool=solo
Client:  ORDO_SQS=http://127.0.0.1:9324 CELERY_RUN_DIR=/tmp/run python3 celery_app.py

The client sends tasks (plain ones, one with a countdown, flaky ones that retry twice with a
countdown), waits for every result (a file-system result backend in CELERY_RUN_DIR), and prints one
JSON line: the results and every run the worker recorded. distribution: CelerySqsTest runs both.
"""
import json
import os
import sys
import time
from urllib.parse import urlparse

from celery import Celery

endpoint = urlparse(os.environ.get("ORDO_SQS", "http://127.0.0.1:9324"))
run_dir = os.environ.get("CELERY_RUN_DIR", "/tmp/ordo-celery")
os.makedirs(os.path.join(run_dir, "results"), exist_ok=True)

app = Celery("ordo_celery", broker="sqs://any:any@%s:%d" % (endpoint.hostname, endpoint.port),
             backend="file://" + os.path.join(run_dir, "results"))
app.conf.broker_transport_options = {
    "region": "us-east-1",
    "is_secure": endpoint.scheme == "https",
    "wait_time_seconds": 1,  # long polls of 1 s
    "polling_interval": 0.1,
    "visibility_timeout": 60,
}
app.conf.task_default_queue = "ordo-celery"
app.conf.task_acks_late = True  # the message is deleted once the task is done
app.conf.worker_prefetch_multiplier = 1


def record(what):
    with open(os.path.join(run_dir, "runs.log"), "a") as f:
        f.write("%s %.3f\n" % (what, time.time()))


@app.task(name="ordo_celery.add")
def add(x, y):
    record("add %d %d" % (x, y))
    return x + y


@app.task(name="ordo_celery.flaky", bind=True, max_retries=2)
def flaky(self, key):
    record("flaky %s %d" % (key, self.request.retries))
    if self.request.retries < 2:
        raise self.retry(countdown=1)
    return "%s done after %d retries" % (key, self.request.retries)


def main():
    sent_at = time.time()
    adds = [add.delay(i, i) for i in range(10)]
    later = add.apply_async((100, 1), countdown=2)
    flakies = [flaky.delay("f%d" % i) for i in range(3)]
    out = {
        "sentAt": sent_at,
        "adds": [r.get(timeout=90) for r in adds],
        "later": later.get(timeout=90),
        "flaky": [r.get(timeout=90) for r in flakies],
    }
    with open(os.path.join(run_dir, "runs.log")) as f:
        out["runs"] = [line.split() for line in f if line.strip()]
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    sys.exit(main())
