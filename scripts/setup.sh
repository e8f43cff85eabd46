#!/usr/bin/env bash
# Installs what AttachKit needs on Debian 12 (bookworm), skipping packages already present.
# Safe to run again and again. Needs root or sudo when something is missing.
#   libvips-dev, FFmpeg 5.1 -dev packages (libavfilter-dev for HDR tone mapping with zscale/tonemap),
#   zlib1g-dev and libjpeg62-turbo-dev (libvips-dev pulls them too), libmicrohttpd-dev (attachkit http), pkg-config: to build
#   ffmpeg, libvips-tools: the reference CLIs the tests and benchmarks compare against;
#   libjpeg-turbo-progs: jpegtran, which writes the arithmetic-coded JPEGs the tests refuse to pass on
set -euo pipefail

packages=(
  pkg-config
  libvips-dev zlib1g-dev libjpeg62-turbo-dev
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavfilter-dev
  libmicrohttpd-dev
  ffmpeg libvips-tools libjpeg-turbo-progs
)
# Extra packages callers may ask for, e.g. scripts/setup.sh imagemagick: the benchmarks add
# imagemagick, scripts/package.sh adds dpkg-dev (dpkg-shlibdeps), .ci/run adds lintian (the package test)
packages+=("$@")

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
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
