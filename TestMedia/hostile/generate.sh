#!/usr/bin/env bash
# Generates AttachKit's hostile corpus into OUT_DIR (default: a fresh temporary folder, printed on
# stdout), deterministically, from TestMedia's fixtures and bytes written here. Never downloads.
# Needs bash, coreutils, gzip (for CRC-32), and the vips CLI. Writes OUT_DIR/expectations.tsv:
#   file <TAB> expectation <TAB> note
# expectation: refused:CODE  the input must be refused with that error code, nothing written
#              refused       refused with any clear error code, nothing written
#              any           either refused with a clear error, or a valid output within budget
# The test suite (HostileCorpusTests) runs this script and checks every row.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
media="$here/.."
out="${1:-$(mktemp -d /tmp/attachkit-hostile.XXXXXX)}"
mkdir -p "$out"
cd "$out"
rm -f ./*.* expectations.tsv
expect() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> expectations.tsv; }

# Bytes from a hex string ("89504e47") on stdout (one printf: a loop per byte takes minutes for 40 KB).
hex() { printf "$(printf '%s' "$1" | sed 's/../\\x&/g')"; }
# CRC-32 (the PNG/zlib/gzip polynomial) of stdin, as 8 big-endian hex digits: gzip's trailer holds it.
crc32() { gzip -c | tail -c 8 | head -c 4 | od -An -tx1 | tr -d ' \n' | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/'; echo; }
# A PNG chunk: TYPE and hex DATA, with length and CRC.
chunk() {
  local type="$1" data="$2"
  hex "$(printf '%08x' $(( ${#data} / 2 )))"
  printf '%s' "$type"
  hex "$data"
  hex "$({ printf '%s' "$type"; hex "$data"; } | crc32)"
}
u32() { printf '%08x' "$1"; }
le16() { printf '%02x%02x' $(( $1 & 255 )) $(( ($1 >> 8) & 255 )); }
# Overwrite bytes at OFFSET in FILE with hex BYTES.
patch() { hex "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# Byte offset of the first occurrence of a (binary) pattern given as hex, or nothing.
find_hex() { LC_ALL=C grep -obUaP "$(echo "$2" | sed 's/\(..\)/\\x\1/g')" "$1" | head -1 | cut -d: -f1; }

# 1. Headers that claim enormous pictures (refused by the pixel cap before any decoding).
{ hex 89504e470d0a1a0a; chunk IHDR "$(u32 100000)$(u32 100000)0800000000"; chunk IDAT 789c030000000001; chunk IEND ""; } > png_header_100000x100000.png
expect png_header_100000x100000.png refused "IHDR claims 100000x100000 (10 Gpx)"
{ printf 'GIF89a'; hex "$(le16 65535)$(le16 65535)800000" ; hex 000000ffffff; hex 2c00000000"$(le16 65535)$(le16 65535)"00; hex 0202440100; printf ';'; } > gif_header_65535x65535.gif
expect gif_header_65535x65535.gif refused "screen and frame claim 65535x65535 (GIF's largest)"
cp "$media/images/jpeg_greyscale_640x480.jpg" jpeg_header_65535x65535.jpg
sof=$(find_hex jpeg_header_65535x65535.jpg ffc0)
patch jpeg_header_65535x65535.jpg $(( sof + 5 )) ffffffff
expect jpeg_header_65535x65535.jpg refused "SOF0 patched to 65535x65535; scan data is for 640x480"

# 2. Decompression bombs: tiny files, huge bitmaps.
vips black png_bomb_30000x30000.png[bitdepth=1,compression=9] 30000 30000 --bands 1
expect png_bomb_30000x30000.png refused:over-cap "valid 1-bit PNG, 900 Mpx: over the 268 Mpx safety cap"
vips black png_bomb_16000x16000.png[bitdepth=1,compression=9] 16000 16000 --bands 1
expect png_bomb_16000x16000.png any "valid 1-bit PNG, 256 Mpx, under the safety cap: must downscale in bounded memory or be refused"

# 3. A GIF with 131072 frames of 1x1 (2^17, by doubling one frame ffmpeg wrote).
ffmpeg -nostdin -v error -y -f lavfi -i "color=c=white:s=2x2:r=10:d=0.3,scale=1:1" -frames:v 3 -loop 0 -fflags +bitexact one.gif
first=$(find_hex one.gif 21f904)
size=$(stat -c %s one.gif)
head -c "$first" one.gif > header.bin                       # header, palette, NETSCAPE loop
tail -c 26 one.gif | head -c 25 > frames.bin               # the last frame: control block + image
for _ in $(seq 17); do cat frames.bin frames.bin > frames2.bin; mv frames2.bin frames.bin; done
{ cat header.bin frames.bin; printf ';'; } > gif_131072_frames_1x1.gif
rm -f one.gif header.bin frames.bin
expect gif_131072_frames_1x1.gif refused:over-cap "131072 frames of 1x1: over the 10000-frame safety cap"

# 4. Containers whose header lies about size or length.
cp "$media/video/mp4_h264_aac_320x240_2s.mp4" mp4_moov_claims_10h.mp4
mvhd=$(find_hex mp4_moov_claims_10h.mp4 6d766864)
scale=$(od -An -tu1 -j $(( mvhd + 16 )) -N4 mp4_moov_claims_10h.mp4 | awk '{print $1*16777216+$2*65536+$3*256+$4}')
patch mp4_moov_claims_10h.mp4 $(( mvhd + 20 )) "$(u32 $(( scale * 36000 )))"
expect mp4_moov_claims_10h.mp4 any "mvhd duration patched to 10 hours; the tracks hold 2 s"
cp "$media/malformed/wav_data_claims_4gb.wav" wav_claims_4gb.wav
expect wav_claims_4gb.wav refused:corrupt "RIFF and data sizes claim 4 GiB, 16 KB present"

# 5. Empty files and lying names.
for ext in jpg png gif mp4 mp3 wav heic; do : > "zero.$ext"; expect "zero.$ext" refused "zero bytes"; done
printf '{"error": "not found"}' > json_named.jpg; expect json_named.jpg refused:unrecognized-type "JSON error body named .jpg"
printf '<html><body>404</body></html>' > html_named.mp4; expect html_named.mp4 refused:unrecognized-type "HTML named .mp4"
cp "$media/images/gif_static_320x240.gif" gif_named.mp3; expect gif_named.mp3 any "a valid GIF named .mp3: prepared as .gif"

# 6. Truncations at many offsets and single-byte flips, from six small fixtures.
sources=(images/jpeg_progressive_800x600.jpg images/png_palette_400x300.png images/gif_animated_320x240_24f.gif
         video/mp4_h264_aac_320x240_2s.mp4 audio/mp3_stereo_44k_5s.mp3 audio/wav_s16le_16k_mono_5s.wav)
for source in "${sources[@]}"; do
  name=$(basename "$source"); stem="${name%.*}"; ext="${name##*.}"
  size=$(stat -c %s "$media/$source")
  for cut in 1 2 8 16 64 512 $(( size / 10 )) $(( size / 4 )) $(( size / 2 )) $(( size * 9 / 10 )) $(( size - 1 )); do
    head -c "$cut" "$media/$source" > "trunc_${stem}_${cut}.$ext"
    expect "trunc_${stem}_${cut}.$ext" any "first $cut of $size bytes"
  done
  # Deterministic flips: offsets spread over the file, xor 0xff.
  for k in 1 2 3 4 5 6 7 8; do
    offset=$(( (size * k * 7919 / 65536 + k * 131) % size ))
    cp "$media/$source" "flip_${stem}_${offset}.$ext"
    byte=$(od -An -tu1 -j "$offset" -N1 "$media/$source" | tr -d ' ')
    patch "flip_${stem}_${offset}.$ext" "$offset" "$(printf '%02x' $(( byte ^ 255 )))"
    expect "flip_${stem}_${offset}.$ext" any "byte $offset of $size flipped"
  done
done
echo "$out"
