#!/usr/bin/env bash
# Installs what AttachKit needs on Debian 12 (bookworm), skipping packages already present.
# Safe to run again and again. Needs root or sudo when something is missing.
#   libvips-dev, FFmpeg 5.1 -dev packages (libavfilter-dev for HDR tone mapping with zscale/tonemap),
#   zlib1g-dev and libjpeg62-turbo-dev (libvips-dev pulls them too), libmicrohttpd-dev (attachkit http), libcurl4-openssl-dev (its URL mode), pkg-config: to build
#   ffmpeg, libvips-tools: the reference CLIs the tests and benchmarks compare against;
#   libjpeg-turbo-progs: jpegtran, which writes the arithmetic-coded JPEGs the tests refuse to pass on
set -euo pipefail

packages=(
  pkg-config
  libvips-dev zlib1g-dev libjpeg62-turbo-dev
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev
  libmicrohttpd-dev libcurl4-openssl-dev
  ffmpeg libvips-tools libjpeg-turbo-progs
)
# Extra packages callers may ask for, e.g. scripts/setup.sh imagemagick: the benchmarks add
# imagemagick, scripts/package.sh adds dpkg-dev (dpkg-shlibdeps), .ci/run adds lintian (the package
# test), chromium (the batch report in a browser), haproxy and prometheus (for promtool: the HTTP
# service behind a load balancer, and its metrics checked)
packages+=("$@")
# Packages wanted for their programs only, whose Debian install would start a service (their
# postinst runs invoke-rc.d start): no daemon is started by installing them (see below).
tool_only=(haproxy prometheus)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
# A policy-rc.d that answers 101 (action forbidden) keeps invoke-rc.d and deb-systemd-invoke from
# starting the services of tool-only packages (a Prometheus server on :9090 left running, or an
# install failing because it cannot start one); put in place only for this install and only when
# the system has none (container images often ship one already).
starts_services=false
for p in "${missing[@]}"; do
  for t in "${tool_only[@]}"; do [ "$p" = "$t" ] && starts_services=true; done
done
if $starts_services && [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\n# scripts/setup.sh: no service starts while it installs tools\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
  $sudo chmod 755 /usr/sbin/policy-rc.d
  trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
