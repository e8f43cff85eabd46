#!/usr/bin/env bash
# Generates AttachKit's hostile corpus into OUT_DIR (default: a fresh temporary folder, printed on
# stdout), deterministically, from TestMedia's fixtures and bytes written here. Never downloads.
# Needs bash, coreutils, gzip (for CRC-32 and deflate), and the vips CLI (with libheif's HEVC
# encoder, for one real HEIF tile). Writes OUT_DIR/expectations.tsv:
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
# 7. Decode-memory bombs: small files whose decoder must hold a huge picture whole (no streaming),
#    under the pixel cap, refused from the header (SafetyLimits.maxDecodeBytes, 512 MiB).
ascii() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
u16() { printf '%04x' "$1"; }
# An ISO-BMFF box TYPE around hex PAYLOAD; a full box adds VERSION and FLAGS first.
box() { printf '%08x%s%s' $(( 8 + ${#2} / 2 )) "$(ascii "$1")" "$2"; }
fullbox() { box "$1" "$(printf '%02x%06x' "$2" "$3")$4"; }
# COUNT bytes of FILE at OFFSET, as hex; the big-endian 32-bit number at OFFSET.
slice() { tail -c +$(( $2 + 1 )) "$1" | head -c "$3" | od -An -tx1 -v | tr -d ' \n'; }
be32at() { od -An -tu1 -j "$2" -N4 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4}'; }
# heif_grid OUT ROWS COLUMNS TILE_WIDTH TILE_HEIGHT distinct|reused [GRID_ISPE_WIDTH GRID_ISPE_HEIGHT]
# A HEIC whose primary item is a ROWS x COLUMNS grid of real HEVC tiles (one black tile encoded by
# libheif through vips, its hvcC and coded bytes copied): ftyp heic; meta with hdlr pict, pitm (the
# grid), iinf (hidden hvc1 tiles, then the grid), iref dimg (grid -> tiles: one tile item listed
# ROWS*COLUMNS times when reused, else one item per cell, each with its own copy of the bytes),
# iprp/ipco (hvcC, tile ispe, grid ispe) + ipma, iloc (tiles in mdat, grid data in idat), idat
# (the grid: rows, columns, output size); mdat with the tiles.
heif_grid() {
  local out="$1" rows="$2" columns="$3" tw="$4" th="$5" mode="$6" k
  local width=$(( columns * tw )) height=$(( rows * th ))
  local gw="${7:-$width}" gh="${8:-$height}"
  vips black "tile.heic[Q=30,strip]" "$tw" "$th" --bands 3
  local c m; c=$(find_hex tile.heic 68766343); m=$(find_hex tile.heic 6d646174)
  local hvcc tile; hvcc=$(slice tile.heic $(( c - 4 )) "$(be32at tile.heic $(( c - 4 )))")
  tile=$(slice tile.heic $(( m + 4 )) $(( $(be32at tile.heic $(( m - 4 ))) - 8 )))
  rm -f tile.heic
  local count=$(( rows * columns )) items=1
  [ "$mode" = distinct ] && items=$count
  local grid=$(( items + 1 )) length=$(( ${#tile} / 2 ))
  local infe="" ipma="" refs="" data=""
  for ((k = 1; k <= items; k++)); do
    infe+=$(fullbox infe 2 1 "$(u16 $k)0000$(ascii hvc1)00"); ipma+="$(u16 $k)028102"; data+="$tile"
  done
  for ((k = 1; k <= count; k++)); do refs+=$(u16 $(( items == 1 ? 1 : k ))); done
  infe+=$(fullbox infe 2 0 "$(u16 $grid)0000$(ascii grid)00"); ipma+="$(u16 $grid)0103"
  local ftyp; ftyp=$(box ftyp "$(ascii heic)00000000$(ascii mif1)$(ascii heic)")
  meta_at() {  # the meta box with the first tile's bytes at file offset $1
    local iloc="" j
    for ((j = 1; j <= items; j++)); do iloc+="$(u16 $j)000000000001$(u32 $(( $1 + (j - 1) * length )))$(u32 $length)"; done
    iloc+="$(u16 $grid)000100000001$(u32 0)$(u32 8)"
    fullbox meta 0 0 "$(fullbox hdlr 0 0 "00000000$(ascii pict)$(printf '%026d' 0)")$(fullbox pitm 0 0 "$(u16 $grid)")$(
      fullbox iinf 0 0 "$(u16 $(( items + 1 )))$infe")$(fullbox iref 0 0 "$(box dimg "$(u16 $grid)$(u16 $count)$refs")")$(
      box iprp "$(box ipco "$hvcc$(fullbox ispe 0 0 "$(u32 $tw)$(u32 $th)")$(fullbox ispe 0 0 "$(u32 $gw)$(u32 $gh)")")$(
        fullbox ipma 0 0 "$(u32 $(( items + 1 )))$ipma")")$(fullbox iloc 1 0 "4400$(u16 $(( items + 1 )))$iloc")$(
      box idat "0000$(printf '%02x%02x' $(( rows - 1 )) $(( columns - 1 )))$(u16 $width)$(u16 $height)")"
  }
  local meta; meta=$(meta_at 0)
  meta=$(meta_at $(( ${#ftyp} / 2 + ${#meta} / 2 + 8 )))
  hex "$ftyp$meta$(box mdat "$data")" > "$out"
}
heif_grid heif_grid_bomb_16380x16380.heic 10 10 1638 1638 reused
expect heif_grid_bomb_16380x16380.heic refused:over-cap "HEIF grid reusing one 1638x1638 tile 100 times: 16380x16380 canvas decoded whole (~1.6 GB)"
heif_grid heif_grid_distinct_12000x12000.heic 8 8 1500 1500 distinct
expect heif_grid_distinct_12000x12000.heic refused:over-cap "HEIF grid of 64 distinct 1500x1500 tiles: 12000x12000 canvas decoded whole (~0.9 GB)"
heif_grid heif_grid_ispe_lies_1638x1638.heic 10 10 1638 1638 reused 1638 1638
expect heif_grid_ispe_lies_1638x1638.heic refused:over-cap "grid ispe says 1638x1638 (all libvips sees), its data 16380x16380 (what libheif allocates)"

# A PNG chunk TYPE around the bytes of FILE.
chunk_file() {
  hex "$(printf '%08x' "$(stat -c %s "$2")")"; printf '%s' "$1"; cat "$2"
  hex "$({ printf '%s' "$1"; cat "$2"; } | crc32)"
}
# A zlib stream of COUNT zero bytes into FILE: gzip's deflate data between a zlib header and the
# Adler-32 of COUNT zeros (a = 1, b = COUNT mod 65521).
zlib_zeros() {
  { hex 78da; head -c "$1" /dev/zero | gzip -9 -n | tail -c +11 | head -c -8
    hex "$(printf '%04x0001' $(( $1 % 65521 )))"; } > "$2"
}
# interlaced_png OUT SIDE: a SIDE x SIDE 1-bit palette PNG (black and white), Adam7-interlaced,
# all black: every pass's rows (a filter byte, then 1 bit per pixel) are zero bytes.
interlaced_png() {
  local side="$2" raw=0 pass xs ys dx dy cols rows
  for pass in "0 0 8 8" "4 0 8 8" "0 4 4 8" "2 0 4 4" "0 2 2 4" "1 0 2 2" "0 1 1 2"; do
    read -r xs ys dx dy <<< "$pass"
    cols=$(( (side - xs + dx - 1) / dx )); rows=$(( (side - ys + dy - 1) / dy ))
    (( cols > 0 && rows > 0 )) && raw=$(( raw + rows * (1 + (cols + 7) / 8) ))
  done
  zlib_zeros "$raw" idat.bin
  { hex 89504e470d0a1a0a; chunk IHDR "$(u32 "$side")$(u32 "$side")0103000001"; chunk PLTE 000000ffffff
    chunk_file IDAT idat.bin; chunk IEND ""; } > "$1"
  rm -f idat.bin
}
interlaced_png png_interlaced_16000x16000.png 16000
expect png_interlaced_16000x16000.png refused:over-cap "valid Adam7 1-bit palette PNG, 256 Mpx: read whole as RGB (768 MB); the same picture not interlaced streams"
cp "$media/images/jpeg_progressive_800x600.jpg" jpeg_progressive_16000x16000.jpg
sof=$(find_hex jpeg_progressive_16000x16000.jpg ffc2)
patch jpeg_progressive_16000x16000.jpg $(( sof + 5 )) "$(printf '%04x%04x' 16000 16000)"
expect jpeg_progressive_16000x16000.jpg refused:over-cap "SOF2 patched to 16000x16000: libjpeg would hold every coefficient (768 MB); scans are for 800x600"

# 8. Sample-table bombs: MP4s whose sample tables declare samples no byte stands behind. libavformat
#    allocates for every sample declared before anything is decoded (2.1-2.9 GB for 89 M), and
#    gives up indexing a track past 2^32/24 (its video then vanished without a word). Patched in
#    the first track (the video) of a 2 s fixture, or the first fragment of the fragmented one.
# mp4_patch OUT TYPE OFFSET HEX: a copy of the fixture with HEX written OFFSET bytes after TYPE.
mp4_patch() {
  local out="$1" at; shift
  cp "$media/video/mp4_h264_aac_320x240_2s.mp4" "$out"
  while [ $# -gt 0 ]; do at=$(find_hex "$out" "$(ascii "$1")"); patch "$out" $(( at + $2 )) "$3"; shift 3; done
}
mp4_patch mp4_stsz_claims_4294967295_samples.mp4 stsz 8 "$(u32 1)ffffffff"
expect mp4_stsz_claims_4294967295_samples.mp4 refused:over-cap "video stsz: 2^32-1 samples of 1 byte (libavformat builds no index: the video vanished)"
mp4_patch mp4_stsz_claims_89M_samples.mp4 stsz 8 "$(u32 1)$(u32 89000000)" stsc 8 "$(u32 1)$(u32 1)$(u32 89000000)"
expect mp4_stsz_claims_89M_samples.mp4 refused:over-cap "video stsz: 89 M samples of 1 byte in one chunk (2.1 GB of index in 7 s)"
mp4_patch mp4_stsc_places_49_of_1000.mp4 stsz 8 "$(u32 1)$(u32 1000)" stsc 8 "$(u32 1)$(u32 1)$(u32 1)"
expect mp4_stsc_places_49_of_1000.mp4 refused:corrupt "video stsz: 1000 samples, its 49 chunks hold one each (indexed partly)"
mp4_patch mp4_video_without_stts.mp4 stts 0 "$(ascii free)"
expect mp4_video_without_stts.mp4 refused:corrupt "video stts renamed: libavformat indexes none of its 50 samples"
mp4_patch mp4_stsz_table_claims_1M.mp4 stsz 12 "$(u32 1000000)"
expect mp4_stsz_table_claims_1M.mp4 refused:corrupt "video stsz lists 50 sizes but declares 1000000"
mp4_patch mp4_ctts_claims_89M.mp4 ctts 8 "$(u32 1)$(u32 89000000)"
expect mp4_ctts_claims_89M.mp4 refused:corrupt "video ctts: one entry for 89 M samples of a 50-sample track"
cp "$media/video/mp4_fragmented_h264_160x120_2s.mp4" mp4_trun_claims_89M_samples.mp4
at=$(find_hex mp4_trun_claims_89M_samples.mp4 "$(ascii trun)")
patch mp4_trun_claims_89M_samples.mp4 $(( at + 4 )) "00000005$(u32 89000000)"
expect mp4_trun_claims_89M_samples.mp4 refused:over-cap "first trun: 89 M samples without per-sample fields (2.9 GB of index in 22 s)"

echo "$out"
