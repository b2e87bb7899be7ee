#!/usr/bin/env bash
# Installs Chromium and its WebDriver from Debian's packages when either is missing: the console
# test (distribution: WebConsoleTest) drives the web console in headless Chromium with Selenium.
# Run by that test itself when /usr/bin/chromium or /usr/bin/chromedriver is absent, so
# `mvn -B verify` needs nothing else.
set -euo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then
  SUDO="sudo -n"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q || true
$SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
test -x /usr/bin/chromium && test -x /usr/bin/chromedriver
echo /usr/bin/chromium
