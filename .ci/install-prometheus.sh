#!/usr/bin/env bash
# Installs Prometheus from Debian's packages when it is missing: the metrics test
# (distribution: PrometheusScrapeTest) starts a real Prometheus server that scrapes `ordo server`.
# Run by that test itself when /usr/bin/prometheus is absent, so `mvn -B verify` needs nothing else.
set -euo pipefail
if command -v prometheus >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
# The package's service is never started here (no init in containers; policy-rc.d may refuse it).
$SUDO apt-get update -q || true
$SUDO apt-get install -y -q --no-install-recommends prometheus
command -v prometheus
