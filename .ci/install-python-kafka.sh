#!/usr/bin/env bash
# Installs Debian's confluent-kafka for Python (with python3-avro for its Avro serializers and
# python3-requests for the HTTP acks) when /usr/bin/python3 cannot import them: the Python client test
# (distribution: PythonConfluentClientTest) runs docs/examples/python/ordo_avro.py with it.
# PyPI is not reachable from the build machines, so no pip: Debian's packages only (decisions D31).
set -euo pipefail
check() { /usr/bin/python3 -c 'import confluent_kafka, confluent_kafka.avro, avro, requests' >/dev/null 2>&1; }
if [ -x /usr/bin/python3 ] && check; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q || true
$SUDO apt-get install -y -q --no-install-recommends python3 python3-confluent-kafka python3-avro python3-requests
check
