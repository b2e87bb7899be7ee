#!/usr/bin/env bash
# Installs Debian's SQS clients when /usr/bin/python3 cannot import them: boto3 (query protocol), the
# aws CLI (/usr/bin/aws), and Celery with kombu's SQS transport (pycurl). The SQS client tests
# (distribution: Boto3SqsTest, AwsCliSqsTest, CelerySqsTest) run them against a real server.
# PyPI is not reachable from the build machines, so no pip: Debian's packages only (decisions D31).
set -euo pipefail
check() {
  /usr/bin/python3 -c 'import boto3, celery, kombu, pycurl' >/dev/null 2>&1 && [ -x /usr/bin/aws ]
}
if [ -x /usr/bin/python3 ] && check; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q || true
$SUDO apt-get install -y -q --no-install-recommends python3 python3-boto3 awscli python3-celery python3-kombu \
  python3-pycurl
check
