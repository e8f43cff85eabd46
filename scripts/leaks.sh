#!/usr/bin/env bash
# valgrind memcheck over probe, validate --deep, prepare and thumbnail of one image, one audio
# file and one video each; prints the "definitely lost" records whose stacks reach AttachKit code
# and exits 1 if there is any. (libvips, GLib and FFmpeg keep one-time globals that valgrind
# calls "still reachable" or "possibly lost" in their own init paths; those are not ours.)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh valgrind >/dev/null
swift build --product attachkit 2>&1 | sed -u '/prohibited flag/d' | tail -1
bin=.build/debug/attachkit
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
runs=(
  "probe TestMedia/images/jpeg_photo_1600x1200_q90.jpg TestMedia/audio/mp3_stereo_44k_5s.mp3 TestMedia/video/mp4_h264_aac_320x240_2s.mp4"
  "validate --deep TestMedia/images/webp_animated_320x240.webp TestMedia/audio/flac_22k_5s.flac TestMedia/video/webm_vp9_opus_320x240_2s.webm"
  "prepare --out $out TestMedia/images/jpeg_large_4032x3024.jpg"
  "prepare --out $out --max-bytes 100KB TestMedia/images/gif_animated_320x240_24f.gif"
  "prepare --out $out TestMedia/audio/ogg_opus_5s.opus"
  "prepare --out $out TestMedia/video/webm_vp9_opus_320x240_2s.webm"
  "thumbnail TestMedia/video/mp4_h264_aac_rotation90_320x240.mp4 --at 1 --out $out/poster.jpg"
  "prepare --out $out TestMedia/malformed/mp4_mdat_cut_half.mp4"
)
ours=0
for run in "${runs[@]}"; do
  log="$out/valgrind.log"
  # shellcheck disable=SC2086
  valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --num-callers=40 --log-file="$log" "$bin" $run >/dev/null 2>&1 || true
  definite=$(grep -E "definitely lost:" "$log" | tail -1 | sed 's/.*definitely lost: //')
  mine=$(awk '/are definitely lost/{block=1} block{print} /^==[0-9]+== $/{if(block){print "--"}; block=0}' "$log" \
         | awk 'BEGIN{RS="--"} /AttachKit|attachkit/' | grep -c "definitely lost" || true)
  echo "valgrind: attachkit ${run%% *} ... : definitely lost ${definite:-0}; records reaching AttachKit: $mine"
  if [ "$mine" -gt 0 ]; then
    ours=1
    awk '/are definitely lost/{block=1} block{print} /^==[0-9]+== $/{block=0}' "$log" | head -60
  fi
done
exit $ours
