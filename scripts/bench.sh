#!/usr/bin/env bash
# Runs the benchmarks: AttachKit side by side with vipsthumbnail, ImageMagick, Pillow and
# ffmpeg/ffprobe, then the transcoding budget table. Writes Benchmarks/results/{results.md,
# results.csv, chart.png, chart.svg} (the chart drawn by Benchmarks/chart.py with matplotlib; with
# --quick: Benchmarks/results/quick/, a smoke run of a minute or two that asserts nothing about speed).
#   scripts/bench.sh [--quick] [--repetitions N] [--only SCENARIO ...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh imagemagick python3-matplotlib >/dev/null
# Pillow is compared when it can be installed; the run goes on without it.
python3 -c "import PIL" 2>/dev/null || python3 -m pip install --quiet pillow >/dev/null 2>&1 || true
swift build -c release --product attachkit 2>&1 | sed -u '/prohibited flag/d' | tail -1
swift build -c release --product attachkit-bench 2>&1 | sed -u '/prohibited flag/d' | tail -1
exec .build/release/attachkit-bench "$@"
