#!/usr/bin/env bash
# Regenerates AttachKit's bundled test fixtures from scratch:
#   TestMedia/{images,audio,video,malformed}/  and  TestMedia/fixtures.tsv
#   TestMedia/formats/  (issue 18: formats beyond the iOS set, MP3s with junk, non-media)
#
# Needs: ffmpeg/ffprobe (written against FFmpeg 5.1), vips/vipsheader (libvips 8.14 with
# libheif, libwebp, cgif, lcms), python3 (standard library only).
# Debian 12: apt-get install ffmpeg libvips-tools python3
#
# Everything is synthetic (ffmpeg lavfi sources, fixed seeds), so the fixtures carry no third-party
# content. Outputs are built in a scratch folder and only replace the old set when every step,
# including the self-check at the end, has succeeded. fixtures.tsv is measured from the files
# (ffprobe, vipsheader, full decodes), never typed by hand; the run fails if a `valid` fixture does
# not decode cleanly.
#
# Usage: TestMedia/generate.sh            (from anywhere)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export LC_ALL=C TZ=UTC
# One libvips worker thread: belt and braces (outputs here were identical with 1 and 4 threads),
# so scheduling can never leak into the bytes.
export VIPS_CONCURRENCY=1

for tool in ffmpeg ffprobe vips vipsheader python3; do
    command -v "$tool" >/dev/null || { echo "generate.sh: '$tool' not found" >&2; exit 1; }
done

TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
OUT="$TMP/out"   # the new fixture tree; moved into TestMedia/ at the very end
S="$TMP/src"     # intermediate sources
mkdir -p "$OUT"/{images,audio,video,malformed} "$S"

step() { printf "  [%ss] %s\n" "$SECONDS" "$*" >&2; }

# ---------------------------------------------------------------------------------------------
# Determinism: no container metadata (-map_metadata -1), no encoder version strings or random
# stream serials / UIDs / dates (bitexact), single-threaded encoders, fixed noise seeds.
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y -filter_threads 1 -filter_complex_threads 1 "$@"; }
BX=(-map_metadata -1 -map_chapters -1 -fflags +bitexact -flags:v +bitexact -flags:a +bitexact -threads 1)
X264=(-c:v libx264 -preset veryfast -profile:v high -pix_fmt yuv420p -threads 1)
X265=(-c:v libx265 -preset fast -pix_fmt yuv420p -tag:v hvc1
      -x265-params "pools=1:frame-threads=1:wpp=0:log-level=error")
AAC=(-c:a aac -b:a 96k)

# A photo-like still: a Mandelbrot region (smooth gradients plus fine detail) under testsrc2
# (bars, diagonal, checkerboard, digits: asymmetric, so a wrong rotation is visible), a vignette
# and film grain. $4 = grain strength (0 = none, for PNG/lossless targets).
photo() {
    local w=$1 h=$2 out=$3 grain=$4
    ff -f lavfi -i "mandelbrot=s=${w}x${h}:start_scale=0.35:start_x=-0.745:start_y=0.11:maxiter=300:outer=normalized_iteration_count:inner=mincol" \
       -f lavfi -i "testsrc2=s=${w}x${h}" \
       -filter_complex "[0]format=rgb24[m];[1]format=rgb24[t];[t][m]blend=all_mode=normal:all_opacity=0.55,format=yuv444p,vignette=angle=PI/5,noise=alls=${grain}:allf=t:all_seed=4242,format=rgb24" \
       -frames:v 1 "${BX[@]}" "$out"
}

# Moving picture for the video fixtures: testsrc2 (motion, counters) with light temporal grain.
vsrc() { echo "testsrc2=s=$1x$2:r=$3:d=$4,noise=alls=${5:-3}:allf=t:all_seed=77"; }

# Music-like audio: a plucked arpeggio over a pentatonic-ish scale (4 notes/s, 3 harmonics,
# each note decays to silence before the next, so there are no clicks) plus a soft bass line.
# The right channel is a fifth lower in the bass so the two channels differ.
arp='st(0,floor(t*4));st(1,mod(ld(0)*3+floor(ld(0)/8),8));st(2,220*pow(2,round(ld(1)*2.4)/12));st(3,mod(t,0.25));exp(-8*ld(3))*(1-4*ld(3))*min(1,ld(3)*200)*(0.45*sin(2*PI*ld(2)*t)+0.18*sin(4*PI*ld(2)*t)+0.08*sin(6*PI*ld(2)*t))'
bassL='0.15*sin(PI*mod(t,1))*sin(2*PI*55*pow(2,mod(floor(t),4)*5/12)*t)'
bassR='0.15*sin(PI*mod(t,1))*sin(2*PI*55*pow(2,(mod(floor(t),4)*5-7)/12)*t)'
asrc() { # RATE DURATION CHANNELS
    if [ "$3" = 1 ]; then echo "aevalsrc=exprs='0.8*($arp+$bassL)':s=$1:d=$2"
    else echo "aevalsrc=exprs='0.8*($arp+$bassL)|0.8*($arp+$bassR)':s=$1:d=$2"; fi
}

# ---------------------------------------------------------------------------------------------
echo "generate.sh: images" >&2
I="$OUT/images"
photo 1600 1200 "$S/photo_1600.png" 4
photo 4032 3024 "$S/photo_4032.png" 3
photo 800 600 "$S/photo_800.png" 5
photo 640 480 "$S/photo_640.png" 5
photo 600 400 "$S/photo_600.png" 5
photo 400 300 "$S/clean_400.png" 0
photo 400 300 "$S/photo_400.png" 5
photo 320 240 "$S/clean_320.png" 0

step "JPEG photo, large JPEG, progressive, greyscale, CMYK"
vips jpegsave "$S/photo_1600.png" "$I/jpeg_photo_1600x1200_q90.jpg" --Q 90 --strip --optimize-coding
vips jpegsave "$S/photo_4032.png" "$I/jpeg_large_4032x3024.jpg" --Q 80 --strip --optimize-coding
vips jpegsave "$S/photo_800.png" "$I/jpeg_progressive_800x600.jpg" --Q 85 --strip --interlace --optimize-coding
vips colourspace "$S/photo_640.png" "$S/grey_640.v" b-w
vips jpegsave "$S/grey_640.v" "$I/jpeg_greyscale_640x480.jpg" --Q 85 --strip
# libvips' built-in CMYK profile is ~1 MB, so the profile is stripped after the transform:
# the file is plain (Adobe APP14, inverted) CMYK without ICC, which decoders must still handle.
vips icc_transform "$S/photo_400.png" "$S/cmyk_400.v" cmyk --embedded
vips jpegsave "$S/cmyk_400.v" "$I/jpeg_cmyk_400x300.jpg" --Q 85 --strip

step "JPEG with EXIF Orientation=6 (APP1 inserted by python)"
vips jpegsave "$S/photo_600.png" "$S/o6.jpg" --Q 85 --strip
python3 - "$S/o6.jpg" "$I/jpeg_exif_orientation6_600x400.jpg" <<'PY'
import struct, sys
src, dst = sys.argv[1:3]
data = open(src, 'rb').read()
assert data[:2] == b'\xff\xd8'
# Big-endian TIFF header, IFD0 with a single entry: Orientation (0x0112) SHORT 1 = 6.
ifd = struct.pack('>H', 1) + struct.pack('>HHIHH', 0x0112, 3, 1, 6, 0) + struct.pack('>I', 0)
tiff = b'MM\x00\x2a' + struct.pack('>I', 8) + ifd
payload = b'Exif\x00\x00' + tiff
app1 = b'\xff\xe1' + struct.pack('>H', len(payload) + 2) + payload
pos = 2
if data[2:4] == b'\xff\xe0':                 # keep JFIF APP0 first, as cameras+JFIF writers do
    pos = 4 + struct.unpack('>H', data[4:6])[0]
open(dst, 'wb').write(data[:pos] + app1 + data[pos:])
PY

step "PNGs: RGBA with transparency, opaque RGB, palette, 16-bit"
# Alpha: a left-to-right ramp (0 -> 255) with a grid of fully transparent round holes.
ff -i "$S/clean_320.png" -vf "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(hypot(mod(X,64)-32,mod(Y,60)-30),13),0,40+215*X/W)'" \
   "${BX[@]}" "$S/rgba_320.png"
vips pngsave "$S/rgba_320.png" "$I/png_rgba_transparency_320x240.png" --strip --compression 9
vips pngsave "$S/clean_400.png" "$I/png_rgb_opaque_400x300.png" --strip --compression 9
vips pngsave "$S/clean_400.png" "$I/png_palette_400x300.png" --strip --compression 9 --palette --Q 90 --effort 7 --dither 0.5
vips colourspace "$S/clean_320.png" "$S/s320_16.v" rgb16
vips pngsave "$S/s320_16.v" "$I/png_16bit_rgb_320x240.png" --strip --compression 9 --bitdepth 16

step "GIF: animated (24 frames, 10 fps, loop 0) and static; APNG"
ff -f lavfi -i "testsrc2=s=320x240:r=10:d=2.4" \
   -f lavfi -i "mandelbrot=s=320x240:r=10:start_scale=0.5:start_x=-0.745:start_y=0.11:maxiter=200" \
   -filter_complex "[0]format=rgb24[t];[1]format=rgb24[m];[t][m]blend=all_mode=normal:all_opacity=0.6:shortest=1,split[a][b];[a]palettegen=max_colors=64:stats_mode=full[p];[b][p]paletteuse=dither=bayer:bayer_scale=3" \
   -frames:v 24 -loop 0 -final_delay -1 "${BX[@]}" "$S/anim.gif"
cp "$S/anim.gif" "$I/gif_animated_320x240_24f.gif"
ff -i "$S/clean_400.png" -filter_complex "scale=320:240:flags=lanczos,split[a][b];[a]palettegen=max_colors=64[p];[b][p]paletteuse=dither=bayer:bayer_scale=3" \
   -frames:v 1 "${BX[@]}" "$I/gif_static_320x240.gif"
ff -f lavfi -i "testsrc2=s=160x120:r=10:d=1.2" -frames:v 12 -plays 0 -pix_fmt rgb24 "${BX[@]}" -f apng "$I/png_apng_animated_160x120.png"

step "WebP: lossy, alpha, animated"
# libvips 8.14 writes an EXIF chunk even with --strip, and prefixes it with "Exif\0\0", which
# FFmpeg's WebP decoder rejects ("invalid TIFF header in Exif data"). The chunk is dropped (and
# the VP8X EXIF/XMP flags cleared) so these fixtures are clean for every decoder.
webp_drop_metadata() {
    python3 - "$1" "$2" <<'PY'
import struct, sys
src, dst = sys.argv[1:3]
b = open(src, 'rb').read()
assert b[:4] == b'RIFF' and b[8:12] == b'WEBP'
chunks, i = [], 12
while i + 8 <= len(b):
    typ, n = b[i:i + 4], struct.unpack('<I', b[i + 4:i + 8])[0]
    chunks.append([typ, bytearray(b[i + 8:i + 8 + n])])
    i += 8 + n + (n & 1)
out = b''
for typ, data in chunks:
    if typ in (b'EXIF', b'XMP '):
        continue
    if typ == b'VP8X':
        data[0] &= ~0x0C & 0xFF            # clear EXIF (0x08) and XMP (0x04) flags
    out += typ + struct.pack('<I', len(data)) + bytes(data) + (b'\x00' if len(data) & 1 else b'')
open(dst, 'wb').write(b'RIFF' + struct.pack('<I', 4 + len(out)) + b'WEBP' + out)
PY
}
vips webpsave "$S/photo_800.png" "$S/lossy.webp" --Q 80 --strip
webp_drop_metadata "$S/lossy.webp" "$I/webp_lossy_800x600.webp"
vips webpsave "$S/rgba_320.png" "$S/alpha.webp" --Q 80 --strip
webp_drop_metadata "$S/alpha.webp" "$I/webp_alpha_320x240.webp"
# libvips carries the GIF's frame delays and loop count over to the WebP.
vips webpsave "$S/anim.gif[n=-1]" "$S/anim.webp" --Q 70 --strip
webp_drop_metadata "$S/anim.webp" "$I/webp_animated_320x240.webp"

step "HEIC (HEVC) and AVIF (AV1) via libheif"
vips heifsave "$S/photo_800.png" "$I/heic_800x600.heic" --compression hevc --Q 50 --strip
vips heifsave "$S/photo_800.png" "$I/avif_800x600.avif" --compression av1 --Q 50 --effort 4 --strip

step "TIFF (LZW), BMP (ffmpeg)"
vips tiffsave "$S/clean_320.png" "$I/tiff_lzw_320x240.tif" --compression lzw --predictor horizontal --strip
ff -i "$S/clean_400.png" -vf scale=160:120:flags=lanczos -pix_fmt bgr24 -c:v bmp "${BX[@]}" "$I/bmp_24bit_160x120.bmp"

step "JPEGs whose names lie"
vips jpegsave "$S/clean_400.png" "$I/jpeg_named_as.png" --Q 85 --strip
vips jpegsave "$S/photo_600.png" "$I/jpeg_no_extension" --Q 85 --strip

# ---------------------------------------------------------------------------------------------
echo "generate.sh: audio" >&2
A="$OUT/audio"
ff -f lavfi -i "$(asrc 44100 5 2)" -c:a libmp3lame -b:a 128k "${BX[@]}" "$A/mp3_stereo_44k_5s.mp3"
ff -f lavfi -i "$(asrc 44100 5 2)" "${AAC[@]}" -movflags +faststart "${BX[@]}" "$A/m4a_aac_lc_5s.m4a"
ff -f lavfi -i "$(asrc 22050 5 1)" -c:a alac -movflags +faststart "${BX[@]}" "$A/m4a_alac_22k_mono_5s.m4a"
ff -f lavfi -i "$(asrc 44100 5 2)" "${AAC[@]}" "${BX[@]}" -f adts "$A/aac_adts_5s.aac"
ff -f lavfi -i "$(asrc 16000 5 1)" -c:a pcm_s16le "${BX[@]}" "$A/wav_s16le_16k_mono_5s.wav"
ff -f lavfi -i "$(asrc 16000 5 1)" -c:a pcm_s16be "${BX[@]}" "$A/aiff_s16be_16k_mono_5s.aif"
ff -f lavfi -i "$(asrc 22050 5 2)" -c:a flac -compression_level 8 "${BX[@]}" "$A/flac_22k_5s.flac"
ff -f lavfi -i "$(asrc 48000 5 2)" -c:a libopus -b:a 64k "${BX[@]}" "$A/ogg_opus_5s.opus"
ff -f lavfi -i "$(asrc 44100 5 2)" -c:a libvorbis -q:a 3 "${BX[@]}" "$A/ogg_vorbis_5s.ogg"
ff -f lavfi -i "$(asrc 8000 40 1)" -c:a pcm_s16le "${BX[@]}" "$A/wav_s16le_8k_mono_40s.wav"

# ---------------------------------------------------------------------------------------------
echo "generate.sh: video" >&2
V="$OUT/video"
VS="$(vsrc 320 240 25 2)"
AS="$(asrc 48000 2 2)"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" "${X264[@]}" -crf 26 "${AAC[@]}" -movflags +faststart "${BX[@]}" "$V/mp4_h264_aac_320x240_2s.mp4"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" "${X265[@]}" -crf 30 "${AAC[@]}" -movflags +faststart "${BX[@]}" "$V/mp4_hevc_aac_320x240_2s.mp4"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" "${X264[@]}" -crf 26 "${AAC[@]}" -movflags +faststart "${BX[@]}" -f mov "$V/mov_h264_aac_320x240_2s.mov"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" -c:v libvpx-vp9 -b:v 300k -deadline good -cpu-used 4 -row-mt 0 -tile-columns 0 -pix_fmt yuv420p \
   -c:a libopus -b:a 64k "${BX[@]}" "$V/webm_vp9_opus_320x240_2s.webm"
ff -f lavfi -i "$VS" -c:v libaom-av1 -usage realtime -cpu-used 8 -row-mt 0 -crf 40 -b:v 0 -pix_fmt yuv420p \
   "${BX[@]}" "$V/mp4_av1_320x240_2s.mp4"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" -c:v mpeg4 -vtag XVID -q:v 10 -c:a libmp3lame -b:a 96k "${BX[@]}" "$V/avi_mpeg4_mp3_320x240_2s.avi"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" -c:v mpeg2video -q:v 12 -g 12 -bf 2 -c:a mp2 -b:a 128k "${BX[@]}" -f vob "$V/mpg_mpeg2_mp2_320x240_2s.mpg"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" "${X264[@]}" -crf 26 "${AAC[@]}" "${BX[@]}" -f mpegts "$V/ts_h264_aac_320x240_2s.ts"
ff -f lavfi -i "$VS" -f lavfi -i "$AS" "${X264[@]}" -crf 26 "${AAC[@]}" "${BX[@]}" -f matroska "$V/mkv_h264_aac_320x240_2s.mkv"
# FFmpeg 5.1 here ignores `-metadata:s:v:0 rotate=90` (the mov muxer only writes display-matrix
# side data, and the 5.1 CLI has no -display_rotation), so the video track's tkhd matrix is
# patched in place: [0 1 0; -1 0 0; H 0 1] in 16.16/2.30 fixed point, as an iPhone writes for a
# portrait recording. ffprobe reports it as displaymatrix side data with rotation=-90 (90 deg
# clockwise); stored frames stay 320x240, the picture displays as 240x320.
ff -f lavfi -i "$VS" -f lavfi -i "$AS" "${X264[@]}" -crf 26 "${AAC[@]}" -movflags +faststart "${BX[@]}" "$S/rot.mp4"
python3 - "$S/rot.mp4" "$V/mp4_h264_aac_rotation90_320x240.mp4" <<'PY'
import struct, sys
src, dst = sys.argv[1:3]
b = bytearray(open(src, 'rb').read())
def children(start, end):
    i = start
    while i + 8 <= end:
        size, typ = struct.unpack('>I4s', b[i:i + 8])
        yield typ, i, i + size
        i += size
moov = next((s, e) for t, s, e in children(0, len(b)) if t == b'moov')
for t, s, e in children(moov[0] + 8, moov[1]):
    if t != b'trak':
        continue
    kids = {typ: (cs, ce) for typ, cs, ce in children(s + 8, e)}
    mdia = {typ: (cs, ce) for typ, cs, ce in children(kids[b'mdia'][0] + 8, kids[b'mdia'][1])}
    if b[mdia[b'hdlr'][0] + 16:mdia[b'hdlr'][0] + 20] != b'vide':
        continue
    tk = kids[b'tkhd'][0]
    version = b[tk + 8]
    m = tk + 12 + (32 if version == 1 else 20) + 16   # matrix follows layer/group/volume/reserved
    w, h = struct.unpack('>II', b[m + 36:m + 44])
    b[m:m + 36] = struct.pack('>9i', 0, 0x10000, 0, -0x10000, 0, 0, h, 0, 0x40000000)
    break
else:
    sys.exit('no video track')
open(dst, 'wb').write(b)
PY
ff -f lavfi -i "$(vsrc 160 90 5 35 0)" "${X264[@]}" -crf 36 -movflags +faststart "${BX[@]}" "$V/mp4_h264_160x90_5fps_35s.mp4"
ff -f lavfi -i "testsrc2=s=2560x1440:r=10:d=1" "${X264[@]}" -crf 34 -movflags +faststart "${BX[@]}" "$V/mp4_h264_2560x1440_1s.mp4"
ff -f lavfi -i "$(vsrc 640 360 25 6 1)" -f lavfi -i "$(asrc 48000 6 2)" "${X264[@]}" -crf 35 \
   -x264-params keyint=25:min-keyint=25:scenecut=0 -c:a aac -b:a 64k -movflags +faststart "${BX[@]}" \
   "$V/mp4_h264_aac_640x360_6s_gop1s.mp4"

# ---------------------------------------------------------------------------------------------
echo "generate.sh: malformed" >&2
M="$OUT/malformed"
vips jpegsave "$S/photo_800.png" "$S/trunc.jpg" --Q 80 --strip
vips pngsave "$S/clean_400.png" "$S/trunc.png" --strip
ff -f lavfi -i "$(vsrc 320 240 25 2)" -f lavfi -i "$(asrc 48000 2 2)" "${X264[@]}" -crf 28 "${AAC[@]}" \
   -movflags +faststart "${BX[@]}" "$S/cut.mp4"
python3 - "$S" "$M" "$I/gif_static_320x240.gif" <<'PY'
import random, struct, sys
S, M, gif = sys.argv[1:4]
rnd = random.Random(20240601)
def rd(p): return open(p, 'rb').read()
def wr(name, b): open(f'{M}/{name}', 'wb').write(b)

wr('zero_bytes.jpg', b'')
j = rd(f'{S}/trunc.jpg'); wr('jpeg_truncated_half.jpg', j[:len(j) // 2])
p = rd(f'{S}/trunc.png'); wr('png_truncated_half.png', p[:len(p) // 2])
g = rd(gif); assert g[-1:] == b'\x3b'; wr('gif_no_trailer.gif', g[:-1])

# MP4 (faststart: ftyp, moov, mdat) cut in the middle of its mdat payload.
m = rd(f'{S}/cut.mp4')
def boxes(b):
    i = 0
    while i + 8 <= len(b):
        size, typ = struct.unpack('>I4s', b[i:i + 8]); yield typ, i, size; i += size
mdat = next((off, size) for typ, off, size in boxes(m) if typ == b'mdat')
wr('mp4_mdat_cut_half.mp4', m[:mdat[0] + 8 + (mdat[1] - 8) // 2])
# A real ftyp box, then a box header claiming a 'moov', then seeded random bytes.
ftyp_end = next(off + size for typ, off, size in boxes(m) if typ == b'ftyp')
wr('mp4_header_then_garbage.mp4', m[:ftyp_end] + struct.pack('>I4s', 4096, b'moov') + rnd.randbytes(4088))
wr('png_signature_then_garbage.png', b'\x89PNG\r\n\x1a\n' + rnd.randbytes(2040))
wr('text_named_as.mp4', b'This is a plain text file, not a video.\nAttachKit must sniff content, not trust the .mp4 name.\n')
wr('json_named_as.webp', b'{"error": "not found", "status": 404, "note": "a server error body saved under an image name"}\n')

# WAV whose RIFF and data sizes claim ~4 GiB while only 1 s of 8 kHz mono 16-bit audio follows.
pcm = b''.join(struct.pack('<h', int(8000 * ((i // 20) % 2 * 2 - 1))) for i in range(8000))
fmt = struct.pack('<4sIHHIIHH', b'fmt ', 16, 1, 1, 8000, 16000, 2, 16)
wr('wav_data_claims_4gb.wav', b'RIFF' + struct.pack('<I', 0xFFFFFFF0) + b'WAVE' + fmt
   + b'data' + struct.pack('<I', 0xFFFFFFC0) + pcm)
PY

# ---------------------------------------------------------------------------------------------
# --- issue 18: formats ---
# Formats FFmpeg or libvips read beyond the iOS set (each must be identified with its real kind,
# then converted or refused with a precise reason), MP3s with chained ID3v2 tags or junk before
# the first frame, and non-media files whose refusal names what they are. Written to
# TestMedia/formats/ (not part of fixtures.tsv: FormatIdentificationTests measures them with
# ffprobe/vipsheader itself). Tiny: 0.5 s of sound or picture, 64x48 pictures.
FMT="$TMP/formats"
mkdir -p "$FMT"
step "issue 18: formats"
tone() { echo "sine=f=440:r=$1:d=${2:-0.5}"; }
clip() { echo "testsrc2=s=${2:-160x120}:r=$1:d=0.5"; }
# Audio-only formats FFmpeg writes.
ff -f lavfi -i "$(tone 16000)" "${BX[@]}" -c:a pcm_s16be -f caf "$FMT/caf_pcm_s16be.caf"
ff -f lavfi -i "$(tone 44100)" "${BX[@]}" -c:a alac -f caf "$FMT/caf_alac.caf"
# CAF with AAC: FFmpeg 5.1's CAF muxer does not take AAC, so its ADTS frames are put in a CAF here:
# 'desc' (aac, 1024 frames per packet), 'kuki' (an esds: version/flags, ES descriptor with the
# AudioSpecificConfig), 'pakt' (packet sizes as variable-length integers, 2048 priming frames), 'data'.
ff -f lavfi -i "$(tone 44100)" "${BX[@]}" -c:a aac -b:a 64k -f adts "$S/fmt_caf_src.aac"
python3 - "$S/fmt_caf_src.aac" "$FMT/caf_aac.caf" <<'PY'
import struct, sys
adts = open(sys.argv[1], 'rb').read()
out = sys.argv[2]
packets, i = [], 0
while i + 7 <= len(adts):
    assert adts[i] == 0xFF and adts[i + 1] & 0xF6 == 0xF0
    protection_absent = adts[i + 1] & 1
    length = (adts[i + 3] & 3) << 11 | adts[i + 4] << 3 | adts[i + 5] >> 5
    head = 7 if protection_absent else 9
    if i == 0:
        profile = (adts[i + 2] >> 6) + 1
        rate_index = (adts[i + 2] >> 2) & 0xF
        channels = (adts[i + 2] & 1) << 2 | adts[i + 3] >> 6
    packets.append(adts[i + head:i + length])
    i += length
rate = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350][rate_index]
asc = struct.pack('>H', profile << 11 | rate_index << 7 | channels << 3)
def descr(tag, body): return bytes([tag, len(body)]) + body
dec = descr(0x04, bytes([0x40, 0x15]) + bytes(3) + struct.pack('>II', 0, 0) + descr(0x05, asc))
esds = descr(0x03, struct.pack('>HB', 0, 0) + dec + descr(0x06, b'\x02'))
def varint(n):
    out = [n & 0x7F]
    n >>= 7
    while n:
        out.append(0x80 | (n & 0x7F)); n >>= 7
    return bytes(reversed(out))
def chunk(kind, body): return kind + struct.pack('>q', len(body)) + body
desc = struct.pack('>dIIIIII', float(rate), int.from_bytes(b'aac ', 'big'), 0, 0, 1024, channels, 0)
pakt = struct.pack('>qqii', len(packets), len(packets) * 1024 - 2048, 2048, 0) + b''.join(varint(len(p)) for p in packets)
data = struct.pack('>I', 0) + b''.join(packets)
open(out, 'wb').write(b'caff' + struct.pack('>HH', 1, 0) + chunk(b'desc', desc) + chunk(b'kuki', bytes(4) + esds) + chunk(b'pakt', pakt) + chunk(b'data', data))
PY
ff -f lavfi -i "$(tone 48000)" "${BX[@]}" -c:a ac3 -b:a 96k -f ac3 "$FMT/ac3_stereo.ac3"
ff -f lavfi -i "$(tone 48000)" "${BX[@]}" -c:a eac3 -b:a 96k -f eac3 "$FMT/eac3_stereo.eac3"
ff -f lavfi -i "$(tone 48000 0.2)" "${BX[@]}" -ac 2 -c:a dca -strict -2 -f dts "$FMT/dts_stereo.dts"
ff -f lavfi -i "$(tone 44100)" "${BX[@]}" -c:a mp2 -b:a 64k -f mp2 "$FMT/mp2_layer2.mp2"
ff -f lavfi -i "$(tone 44100)" "${BX[@]}" -c:a wmav2 -b:a 64k -f asf "$FMT/wma_wmav2.wma"
ff -f lavfi -i "$(tone 44100)" "${BX[@]}" -c:a wavpack -f wv "$FMT/wavpack.wv"
ff -f lavfi -i "$(tone 44100)" "${BX[@]}" -c:a tta -f tta "$FMT/tta.tta"
# Formats the sniffer leaves to libavformat's own detection (no file name given to it).
ff -f lavfi -i "$(tone 8000)" "${BX[@]}" -c:a pcm_mulaw -f au "$FMT/au_mulaw.au"
ff -f lavfi -i "$(tone 8000)" "${BX[@]}" -c:a pcm_s16le -f w64 "$FMT/wave64_s16le.w64"
ff -f lavfi -i "$(tone 8000)" "${BX[@]}" -c:a pcm_u8 -f voc "$FMT/voc_u8.voc"
# Video formats FFmpeg writes.
ff -f lavfi -i "$(clip 25)" -f lavfi -i "$(tone 44100)" "${BX[@]}" "${X264[@]}" -c:a aac -b:a 64k -f flv "$FMT/flv_h264_aac.flv"
ff -f lavfi -i "$(clip 25)" -f lavfi -i "$(tone 44100)" "${BX[@]}" -c:v wmv2 -b:v 200k -c:a wmav2 -b:a 64k -f asf "$FMT/asf_wmv2_wmav2.wmv"
ff -f lavfi -i "$(clip 25 160x112)" -f lavfi -i "$(tone 8000)" "${BX[@]}" -c:v rv10 -b:v 200k -ac 1 -c:a real_144 -f rm "$FMT/rm_rv10_ra144.rm"
ff -f lavfi -i "$(clip 25)" "${BX[@]}" -c:v mpeg2video -b:v 300k -f mxf "$FMT/mxf_mpeg2.mxf"
ff -f lavfi -i "$(clip 25)" "${BX[@]}" -c:v libvpx-vp9 -b:v 100k -f ivf "$FMT/ivf_vp9.ivf"
ff -f lavfi -i "$(clip 25)" "${BX[@]}" "${X264[@]}" -f h264 "$FMT/annexb_h264.h264"
ff -f lavfi -i "$(clip 25)" "${BX[@]}" "${X265[@]}" -f hevc "$FMT/annexb_hevc.hevc"
# Pictures FFmpeg (or libvips) writes. 64x48 from testsrc2.
pic="testsrc2=s=64x48"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v ppm -f image2 "$FMT/pnm_rgb.ppm"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -pix_fmt gray -c:v pgm -f image2 "$FMT/pnm_grey.pgm"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -pix_fmt rgba -c:v pam -f image2 "$FMT/pam_rgba.pam"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v targa -f image2 "$FMT/tga_rgb.tga"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v qoi -f image2 "$FMT/qoi_rgb.qoi"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v pcx -f image2 "$FMT/pcx_rgb.pcx"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v sgi -f image2 "$FMT/sgi_rgb.sgi"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v sunrast -f image2 "$FMT/sunrast_rgb.ras"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v xwd -f image2 "$FMT/xwd_rgb.xwd"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -c:v dpx -f image2 "$FMT/dpx_rgb.dpx"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -pix_fmt rgba -c:v png -f ico "$FMT/ico_png.ico"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -pix_fmt rgb24 -c:v jpeg2000 -f image2 "$FMT/j2k_codestream.j2k"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" -pix_fmt rgb24 -c:v jpeg2000 -format jp2 -f image2 "$FMT/jp2_boxed.jp2"
ff -f lavfi -i "$pic" -frames:v 1 "${BX[@]}" "$S/fmt_pic.png"
vips copy "$S/fmt_pic.png" "$FMT/bigtiff_rgb.tif[bigtiff,strip]"
# Written byte by byte: MP3s with tags and junk, BMP header variants, CUR, PSD, DSF, DFF, non-media.
ff -f lavfi -i "$(tone 44100 1)" "${BX[@]}" -c:a libmp3lame -b:a 64k -write_xing 0 -id3v2_version 0 -f mp3 "$S/fmt_plain.mp3"
python3 - "$FMT" "$S/fmt_plain.mp3" <<'PY'
import random, struct, sys, zipfile, io
out, mp3 = sys.argv[1], open(sys.argv[2], 'rb').read()
def wr(name, data):
    with open(f'{out}/{name}', 'wb') as f: f.write(data)
def synchsafe(n): return bytes([(n >> 21) & 0x7F, (n >> 14) & 0x7F, (n >> 7) & 0x7F, n & 0x7F])
def id3(version, body_len, footer=False, seed=1):
    # A TXXX-less tag: one PRIV frame of pseudo-random bytes (never 0xFF 0xEx: no false frame sync).
    rnd = random.Random(seed)
    payload = bytes(rnd.choice(range(0x20, 0x7F)) for _ in range(body_len - 10))
    frame = b'PRIV' + (synchsafe(len(payload)) if version == 4 else struct.pack('>I', len(payload))) + b'\0\0' + payload
    flags = 0x10 if footer else 0
    head = b'ID3' + bytes([version, 0, flags]) + synchsafe(len(frame))
    return head + frame + ((b'3DI' + bytes([version, 0, flags]) + synchsafe(len(frame))) if footer else b'')
# Three chained tags (v2.3, v2.4 with footer, v2.3): 24 KB of tags before the first frame.
wr('mp3_chained_id3.mp3', id3(3, 8000, seed=1) + id3(4, 8000, footer=True, seed=2) + id3(3, 8000, seed=3) + mp3)
# 2 KB of junk (text-like, no frame sync) before the first frame; and junk after a tag.
rnd = random.Random(7)
junk = bytes(rnd.choice(range(0x20, 0x7F)) for _ in range(2048))
wr('mp3_junk_before_frames.mp3', junk + mp3)
wr('mp3_id3_then_junk.mp3', id3(3, 4000, seed=4) + junk + mp3)
# A ProTracker module (libopenmpt renders it): 31 sample headers (one used: a looped 64-byte square
# wave), one pattern of 64 rows x 4 channels playing C-2 on the first row, 'M.K.' at byte 1080.
# At speed 6 and 125 BPM a pattern lasts 64 x 6 x 20 ms = 7.68 s.
square = bytes([0x40] * 32 + [0xC0] * 32)
samples = struct.pack('>22sHBBHH', b'square', len(square) // 2, 0, 64, 0, len(square) // 2) + bytes(30) * 30
pattern = bytearray(1024)
pattern[0:4] = bytes([0x00 | (1 >> 4) << 4 | 428 >> 8, 428 & 0xFF, (1 & 0xF) << 4, 0])
wr('mod_protracker.mod', b'attachkit test'.ljust(20, b'\0') + samples + bytes([1, 127]) + bytes(128) + b'M.K.' + bytes(pattern) + square)
# Scream Tracker 3, FastTracker 2 and Impulse Tracker modules (libopenmpt renders them): one
# 8-bit sample of 2,000 bytes (a square wave), one pattern of 64 rows playing it on the first row.
# At speed 6 and 125 BPM a pattern lasts 64 x 6 x 20 ms = 7.68 s.
wave = bytes(([0x40] * 50 + [0xC0] * 50) * 20)
def s3m():
    head = b'attachkit test'.ljust(28, b'\0') + bytes([0x1A, 16, 0, 0]) + struct.pack('<HHHHHH', 2, 1, 1, 0, 0x1320, 1)
    head += b'SCRM' + bytes([64, 6, 125, 0xB0, 0, 0]) + bytes(8) + struct.pack('<H', 0) + bytes([0, 8] + [255] * 30)
    head += bytes([0, 255]) + struct.pack('<HH', 0x70 // 16, 0xC0 // 16)
    instrument = bytes([1]) + b'square'.ljust(12, b'\0') + bytes([0]) + struct.pack('<HIIIBBBBI', 0x110 // 16, len(wave), 0, 0, 64, 0, 0, 0, 8363)
    instrument += bytes(12) + b'square'.ljust(28, b'\0') + b'SCRS'
    rows = bytes([0x20, 0x50, 1, 0]) + bytes(63)
    pattern = struct.pack('<H', len(rows) + 2) + rows
    data = head.ljust(0x70, b'\0') + instrument
    data = data.ljust(0xC0, b'\0') + pattern
    return data.ljust(0x110, b'\0') + bytes(b ^ 0x80 for b in wave)  # ST3 samples are unsigned
def xm():
    head = b'Extended Module: ' + b'attachkit test'.ljust(20, b'\0') + b'\x1a' + b'attachkit'.ljust(20, b'\0')
    head += struct.pack('<HIHHHHHHHH', 0x0104, 276, 1, 0, 2, 1, 1, 1, 6, 125) + bytes(256)
    rows = bytes([0x83, 49, 1, 0x80]) + bytes([0x80, 0x80]) * 63
    pattern = struct.pack('<IBHH', 9, 0, 64, len(rows)) + rows
    instrument = struct.pack('<I22sBHI', 263, b'square', 0, 1, 40) + bytes(263 - 33)
    sample = struct.pack('<IIIBbBBbB22s', len(wave), 0, 0, 64, 0, 0, 128, 0, 0, b'square')
    signed = [b - 256 if b > 127 else b for b in wave]
    deltas = bytes((signed[i] - (signed[i - 1] if i else 0)) & 0xFF for i in range(len(signed)))
    return head + pattern + instrument + sample + deltas
def it():
    head = b'IMPM' + b'attachkit test'.ljust(26, b'\0') + bytes([4, 16]) + struct.pack('<HHHHHHHH', 2, 0, 1, 1, 0x0214, 0x0200, 1, 0)
    head += bytes([128, 48, 6, 125, 128, 0]) + struct.pack('<HII', 0, 0, 0) + bytes([32] * 64) + bytes([64] * 64)
    head += bytes([0, 255]) + struct.pack('<II', 0xD0, 0x120)
    sample = b'IMPS' + b'square'.ljust(12, b'\0') + bytes([0, 64, 1, 64]) + b'square'.ljust(26, b'\0') + bytes([1, 0])
    sample += struct.pack('<IIIIIII', len(wave), 0, 0, 8363, 0, 0, 0x200) + bytes(4)
    rows = bytes([0x81, 0x03, 60, 1, 0]) + bytes(63)
    pattern = struct.pack('<HH', len(rows), 64) + bytes(4) + rows
    data = head.ljust(0xD0, b'\0') + sample
    data = data.ljust(0x120, b'\0') + pattern
    signed = bytes((b - 256 if b > 127 else b) & 0xFF for b in wave)
    return data.ljust(0x200, b'\0') + signed
wr('s3m_screamtracker.s3m', s3m())
wr('xm_fasttracker.xm', xm())
wr('it_impulsetracker.it', it())
# BMP with every DIB header size FFmpeg reads: 24-bit bottom-up rows of a gradient.
w, h = 64, 48
rows = b''.join(bytes(sum(([x * 4 % 256, y * 5 % 256, (x + y) * 2 % 256] for x in range(w)), [])) for y in range(h))
def bmp(dib):
    if dib == 12:
        info = struct.pack('<IHHHH', 12, w, h, 1, 24)
    else:
        info = struct.pack('<IiiHHIIiiII', dib, w, h, 1, 24, 0, len(rows), 2835, 2835, 0, 0)
        info += bytes(dib - len(info))
    off = 14 + len(info)
    return b'BM' + struct.pack('<IHHI', off + len(rows), 0, 0, off) + info + rows
for dib, name in [(12, 'os2v1'), (64, 'os2v2'), (52, 'v2'), (56, 'v3'), (108, 'v4'), (124, 'v5')]:
    wr(f'bmp_{name}_{dib}.bmp', bmp(dib))
# CUR: the ICO written by FFmpeg with the resource type set to 2 (cursor) and a hotspot.
ico = open(f'{out}/ico_png.ico', 'rb').read()
wr('cur_png.cur', ico[:2] + struct.pack('<H', 2) + ico[4:10] + struct.pack('<HH', 1, 1) + ico[14:])
# PSD: version 1, 3 channels RGB 8-bit, raw planar image data.
planes = b''.join(bytes((x * 4 + c * 80) % 256 for y in range(h) for x in range(w)) for c in range(3))
wr('psd_rgb.psd', b'8BPS' + struct.pack('>H6xHIIHH', 1, 3, h, w, 8, 3) + struct.pack('>III', 0, 0, 0)
   + struct.pack('>H', 0) + planes)
# DSD: 20 ms of DSD64 stereo "silence" (0x69 pattern) in DSF and DFF.
rate, seconds = 2822400, 0.02
samples = int(rate * seconds)
block = 4096
blocks = -(-samples // 8 // block)
data = bytes([0x69]) * (blocks * block * 2)
fmt = struct.pack('<4sQIIIIIQII', b'fmt ', 52, 1, 0, 2, 2, rate, 1, samples, block) + bytes(4)
dsf = struct.pack('<4sQQQ', b'DSD ', 28, 28 + 52 + 12 + len(data), 0) + fmt + struct.pack('<4sQ', b'data', 12 + len(data)) + data
wr('dsd_stereo.dsf', dsf)
sound = bytes([0x69]) * (samples // 8 * 2)
def chunk(cid, body): return cid + struct.pack('>Q', len(body)) + body + (b'\0' if len(body) % 2 else b'')
prop = b'SND ' + chunk(b'FS  ', struct.pack('>I', rate)) + chunk(b'CHNL', struct.pack('>H', 2) + b'SLFTSRGT') \
    + chunk(b'CMPR', b'DSD ' + bytes([14]) + b'not compressed' + b'\0')
form = b'DSD ' + chunk(b'FVER', struct.pack('>I', 0x01050000)) + chunk(b'PROP', prop) + chunk(b'DSD ', sound)
wr('dsd_stereo.dff', chunk(b'FRM8', form))
# Not media: each refusal must say what the bytes are.
wr('pdf_binary.pdf', b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n'
   b'2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n')
wr('svg_vector.svg', b'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="64" height="48">'
   b'<rect width="64" height="48" fill="#3a7"/></svg>\n')
wr('html_page.html', b'<!DOCTYPE html>\n<html><head><title>404</title></head><body><h1>Not Found</h1></body></html>\n')
zbuf = io.BytesIO()
with zipfile.ZipFile(zbuf, 'w') as z:
    info = zipfile.ZipInfo('readme.txt', date_time=(2020, 1, 1, 0, 0, 0))
    z.writestr(info, 'not media\n')
wr('zip_archive.zip', zbuf.getvalue())
wr('json_body.json', b'{"error": {"code": 404, "message": "not found"}}\n')
wr('text_plain.txt', b'This is a plain text file, not a picture or a sound.\n' * 4)
elf = b'\x7fELF\x02\x01\x01' + bytes(9) + struct.pack('<HHIQQQIHHHHHH', 2, 62, 1, 0x400078, 64, 0, 0, 64, 56, 1, 0, 0, 0)
wr('elf_executable.bin', elf + bytes(56) + b'\xc3')
wr('pe_executable.exe', b'MZ' + bytes(58) + struct.pack('<I', 64) + b'PE\0\0' + struct.pack('<HH', 0x8664, 0) + bytes(200))
wr('macho_executable.bin', struct.pack('<IIIIIII', 0xFEEDFACF, 0x01000007, 3, 2, 0, 0, 0) + bytes(200))
rnd = random.Random(18)
wr('random_bytes.bin', bytes(rnd.getrandbits(8) for _ in range(8192)))
PY

# --- issue 29: formats ---
# QCP (RFC 3625, Qualcomm PureVoice) written byte by byte, since FFmpeg encodes none of its codecs:
# a RIFF 'QLCM' form with the 150-byte 'fmt ' chunk (codec GUID, rate map), 'vrat' (variable
# rate, packet count) and 'data' holding 50 eighth-rate packets of zero bits (1 s of comfort
# noise, 20 ms per packet): QCELP-13K and EVRC decode; SMV (no decoder in FFmpeg 5.1) is refused.
step "issue 29: QCP"
python3 - "$FMT" <<'PY'
import struct, sys
out = sys.argv[1]
QCELP = bytes([0x41, 0x6d, 0x7f, 0x5e, 0x15, 0xb1, 0xd0, 0x11, 0xba, 0x91, 0x00, 0x80, 0x5f, 0xb4, 0xb9, 0x7e])
EVRC = bytes([0x8d, 0xd4, 0x89, 0xe6, 0x76, 0x90, 0xb5, 0x46, 0x91, 0xef, 0x73, 0x6a, 0x51, 0x00, 0xce, 0xb4])
SMV = bytes([0x75, 0x2b, 0x7c, 0x8d, 0x97, 0xa7, 0x49, 0xed, 0x98, 0x5e, 0xd5, 0x3c, 0x8c, 0xc7, 0x5f, 0x84])
def qcp(guid, name, bps, rates, packets):
    # 'fmt ': version 1.0, GUID, codec version, 80-byte name, average bit rate, largest packet
    # (rate octet included), 160 samples per block, 8000 Hz, 16-bit, the rate map (packet bytes
    # after the rate octet, rate octet) in 8 entries, 20 reserved bytes.
    table = b''.join(struct.pack('<BB', size, octet) for size, octet in rates).ljust(16, b'\0')
    fmt = struct.pack('<BB', 1, 0) + guid + struct.pack('<H', 1) + name.ljust(80, b'\0') \
        + struct.pack('<HHHHHI', bps, max(s for s, _ in rates) + 1, 160, 8000, 16, len(rates)) + table + bytes(20)
    assert len(fmt) == 150
    data = b''.join(packets)
    body = b'QLCM' + b'fmt ' + struct.pack('<I', len(fmt)) + fmt + b'vrat' + struct.pack('<III', 8, 1, len(packets)) \
        + b'data' + struct.pack('<I', len(data)) + data + (b'\0' if len(data) % 2 else b'')
    return b'RIFF' + struct.pack('<I', len(body)) + body
def wr(name, data): open(f'{out}/{name}', 'wb').write(data)
# QCELP-13K packets: 34, 16, 7 or 3 bytes after the rate octet (full to eighth rate); EVRC: 22, 10, 2.
wr('qcp_qcelp.qcp', qcp(QCELP, b'Qcelp 13K', 13000, [(34, 4), (16, 3), (7, 2), (3, 1), (0, 0)], [b'\x01' + bytes(3)] * 50))
wr('qcp_evrc.qcp', qcp(EVRC, b'TIA IS-127 Enhanced Variable Rate Codec, Speech Service Option 3', 8500,
                       [(22, 4), (10, 3), (2, 1), (0, 0)], [b'\x01' + bytes(2)] * 50))
wr('qcp_smv.qcp', qcp(SMV, b'SMV', 8500, [(22, 4), (10, 3), (4, 2), (2, 1), (0, 0)], [b'\x01' + bytes(2)] * 50))
PY
for f in qcp_qcelp qcp_evrc; do
    ffmpeg -nostdin -v error -i "$FMT/$f.qcp" -f null - || { echo "generate.sh: $f.qcp does not decode" >&2; exit 1; }
done

# Tracks iOS does not need (issue 29): a timecode track (tmcd), a chapter text track, a mov_text
# subtitle, and a QuickTime movie with three timed-metadata tracks (an iPhone's 'meta'
# tracks with 'mebx' sample entries: made from the timecode track, its handler and sample entry
# rewritten, with a 'keys' table). prepare maps the picture and the sound only, and notes each drop.
step "issue 29: tracks iOS does not need"
TRK=(-f lavfi -i "$(clip 25)" -f lavfi -i "$(tone 44100)")
ff "${TRK[@]}" "${BX[@]}" "${X264[@]}" -c:a aac -b:a 64k -timecode 01:00:00:00 -f mp4 "$FMT/mp4_h264_timecode_tmcd.mp4"
printf ';FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=250\ntitle=One\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=250\nEND=500\ntitle=Two\n' > "$S/chapters.txt"
printf '1\n00:00:00,000 --> 00:00:00,400\nhello\n' > "$S/subtitle.srt"
# (-map_metadata:g, not -1: without their titles the chapters get no text track, only a dangling reference.)
ff "${TRK[@]}" -i "$S/chapters.txt" -map 0 -map 1 -map_metadata:g -1 -map_chapters 2 -fflags +bitexact \
   -flags:v +bitexact -flags:a +bitexact -threads 1 "${X264[@]}" -c:a aac -b:a 64k -f mp4 "$FMT/mp4_h264_chapters_text.mp4"
ff "${TRK[@]}" -i "$S/subtitle.srt" "${BX[@]}" "${X264[@]}" -c:a aac -b:a 64k -c:s mov_text -f mp4 "$FMT/mp4_h264_mov_text_subtitles.mp4"
ff "${TRK[@]}" "${BX[@]}" "${X265[@]}" -c:a aac -b:a 64k -timecode 01:00:00:00 -f mov "$S/hevc_timecode.mov"
python3 - "$S/hevc_timecode.mov" "$FMT/mov_hevc_mebx_metadata_x3.mov" <<'PY'
import copy, struct, sys
src, dst = sys.argv[1:3]
def box(t, body): return struct.pack('>I4s', 8 + len(body), t) + body
CONTAINERS = {b'moov', b'trak', b'mdia', b'minf', b'stbl', b'edts', b'dinf', b'udta'}
def parse(b):
    nodes, i = [], 0
    while i + 8 <= len(b):
        size, t = struct.unpack('>I4s', b[i:i + 8]); body = b[i + 8:i + size]; i += size
        nodes.append([t, b'', parse(body)] if t in CONTAINERS else [t, body, None])
    return nodes
def build(nodes): return b''.join(box(t, h + (build(c) if c is not None else b'')) for t, h, c in nodes)
def find(nodes, *path):
    for n in nodes:
        if n[0] == path[0]: return n if len(path) == 1 else find(n[2], *path[1:])
b = open(src, 'rb').read()
i = 0
while i + 8 <= len(b):
    size, t = struct.unpack('>I4s', b[i:i + 8])
    if t == b'moov': break
    i += size
assert t == b'moov' and i + size == len(b), 'moov must be last'
moov = parse(b[i + 8:])
tmcd = next(n for n in moov if n[0] == b'trak' and find(n[2], b'mdia', b'hdlr')[1][8:12] == b'tmcd')
moov.remove(tmcd)
for n in moov:
    if n[0] == b'trak': n[2] = [c for c in n[2] if c[0] != b'tref']  # the picture's reference to the timecode
mvhd = find(moov, b'mvhd'); next_id = struct.unpack('>I', mvhd[1][-4:])[0]
# A 'keys' table of one key: local id 1, 'keyd' (namespace mdta and the key), 'dtyp' (well-known type 0).
key = box(struct.pack('>I', 1), box(b'keyd', b'mdta' + b'com.apple.quicktime.detected-face') + box(b'dtyp', struct.pack('>II', 0, 0)))
for _ in range(3):
    t = copy.deepcopy(tmcd)
    tkhd = find(t[2], b'tkhd'); at = 12 if tkhd[1][0] == 0 else 20
    tkhd[1] = tkhd[1][:at] + struct.pack('>I', next_id) + tkhd[1][at + 4:]; next_id += 1
    hdlr = find(t[2], b'mdia', b'hdlr'); hdlr[1] = hdlr[1][:8] + b'meta' + hdlr[1][12:]
    minf = find(t[2], b'mdia', b'minf'); minf[2] = [[b'nmhd', bytes(4), None] if c[0] == b'gmhd' else c for c in minf[2]]
    stsd = find(t[2], b'mdia', b'minf', b'stbl', b'stsd')
    stsd[1] = struct.pack('>II', 0, 1) + box(b'mebx', bytes(6) + struct.pack('>H', 1) + box(b'keys', key))
    moov.append(t)
mvhd[1] = mvhd[1][:-4] + struct.pack('>I', next_id)
open(dst, 'wb').write(b[:i] + box(b'moov', build(moov)))
PY
tags="$(ffprobe -v error -show_entries stream=codec_tag_string -of csv=p=0 "$FMT/mov_hevc_mebx_metadata_x3.mov" | paste -sd,)"
[ "$tags" = "hvc1,mp4a,mebx,mebx,mebx" ] || { echo "generate.sh: mebx movie has streams $tags" >&2; exit 1; }
tags="$(ffprobe -v error -show_entries stream=codec_tag_string -of csv=p=0 "$FMT/mp4_h264_chapters_text.mp4" | paste -sd,)"
[ "$tags" = "avc1,mp4a,text" ] || { echo "generate.sh: the chapters movie has streams $tags" >&2; exit 1; }

# Camera raws (issue 29), made byte by byte around small JPEG previews: a NEF (big-endian, an RGB
# thumbnail in IFD0, the 1280x854 JPEG preview and the sensor data in SubIFDs, orientation 6), a
# NEF whose only JPEG is a 160x120 thumbnail (refused by name), an ARW (the preview in IFD0, a
# thumbnail in IFD1), a DNG (the preview a JPEG strip in a SubIFD, half the sensor's size,
# orientation 8), a CR2 (the preview as IFD0's strip, the sensor data a lossless JPEG), a RAF
# (its own header; the orientation in the preview's EXIF) and a CR3 (Canon's boxes: CMT1's IFD0,
# THMB, PRVW; orientation 3). The sensor data is a few bytes that
# stand for it: nothing here decodes it. Previews: a two-colour gradient with a red block in the
# top-left corner, so an orientation applied wrongly shows.
step "issue 29: camera raws"
for s in 1280x854 1024x680 768x512 160x120 160x106; do
    ff -f lavfi -i "gradients=s=$s:c0=0x3060a0:c1=0xe0c070:x0=0:y0=0:x1=${s%x*}:y1=${s#*x}:nb_colors=2:seed=1,drawbox=x=0:y=0:w=iw/4:h=ih/6:c=red@1:t=fill" \
       -frames:v 1 "${BX[@]}" "$S/p_$s.png"
    vips jpegsave "$S/p_$s.png" "$S/p_$s.jpg" --Q 70 --strip --optimize-coding
done
ff -f lavfi -i "testsrc2=s=64x48" -frames:v 1 "${BX[@]}" -c:v ljpeg -pix_fmt bgr24 -f image2 "$S/ljpeg.jpg"
python3 - "$FMT" "$S" <<'PY'
import struct, sys
out, P = sys.argv[1], sys.argv[2]   # output folder, folder of the preview JPEGs
def rd(p): return open(p, 'rb').read()
SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 7: 1, 13: 4}
def tiff(order, ifds, blobs, magic=42, head=None):
    """A TIFF-like file: the 8-byte header (byte order `order`, `magic`), then each IFD of `ifds`
    (name -> entries, in order, the first being IFD0) with its out-of-line values, then the blobs.
    An entry is (tag, type, values): values a list of numbers, bytes, ('ifd', name), ('at', blob)
    or ('size', blob); ('next', name) as an IFD's last entry chains it."""
    e = '<' if order == 'II' else '>'
    names = list(ifds)
    assert not set(names) & set(blobs), 'IFDs and blobs need names of their own'
    # First pass: where each IFD and blob goes.
    def value_bytes(typ, v):
        if isinstance(v, bytes): return v
        return b''.join(struct.pack(e + {1: 'B', 3: 'H', 4: 'I', 13: 'I'}[typ], x) for x in v)
    start = 8 if head is None else len(head)
    at, where = start, {}
    for name in names:
        entries = [x for x in ifds[name] if x[0] != 'next']
        where[name] = at
        at += 2 + 12 * len(entries) + 4
        for tag, typ, v in entries:
            n = len(v) if isinstance(v, (bytes, list)) else 1
            size = SIZES[typ] * n
            if size > 4: at += size + (size & 1)
    for name, blob in blobs.items():
        where[name] = at
        at += len(blob) + (len(blob) & 1)
    # Second pass: the bytes.
    body = bytearray()
    def resolve(v):
        if isinstance(v, tuple):
            kind, ref = v
            return [where[ref]] if kind in ('ifd', 'at') else [len(blobs[ref])]
        if isinstance(v, list):
            out = []
            for x in v: out += resolve(x) if isinstance(x, tuple) else [x]
            return out
        return v
    for name in names:
        entries = [x for x in ifds[name] if x[0] != 'next']
        nxt = [x[1] for x in ifds[name] if x[0] == 'next']
        table_end = where[name] + 2 + 12 * len(entries) + 4
        table, extra = struct.pack(e + 'H', len(entries)), b''
        for tag, typ, v in sorted(entries):
            data = value_bytes(typ, resolve(v))
            count = len(data) // SIZES[typ]
            if len(data) <= 4:
                field = data.ljust(4, b'\0')
            else:
                field = struct.pack(e + 'I', table_end + len(extra))
                extra += data + (b'\0' if len(data) & 1 else b'')
            table += struct.pack(e + 'HHI', tag, typ, count) + field
        table += struct.pack(e + 'I', where[nxt[0]] if nxt else 0)
        body += table + extra
    for name, blob in blobs.items():
        assert start + len(body) == where[name]
        body += blob + (b'\0' if len(blob) & 1 else b'')
    header = (order.encode() + struct.pack(e + 'HI', magic, start)) if head is None else head
    return header + bytes(body)
def ascii(s): return s.encode() + b'\0'
def rgb(w, h):  # an uncompressed RGB thumbnail: a left-to-right ramp
    return bytes(v for y in range(h) for x in range(w) for v in (x * 255 // max(1, w - 1), y * 255 // max(1, h - 1), 128))
def fake_raw(n): return bytes((i * 37) & 0xFF for i in range(n))   # stands for the sensor data

# NEF (Nikon: big-endian TIFF, Make NIKON...): IFD0 an 80x54 RGB thumbnail, orientation 6 (90 deg
# clockwise); SubIFD0 the 1280x854 JPEG preview (JPEGInterchangeFormat/Length only, no size tags,
# as Nikon writes it); SubIFD1 the 14-bit raw, 1296x864; an EXIF IFD.
def nef(preview, name, orientation=6):
    ifd0 = [(254, 4, [1]), (256, 4, [80]), (257, 4, [54]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
            (271, 2, ascii('NIKON CORPORATION')), (272, 2, ascii('NIKON Z TEST')), (273, 4, [('at', 'thumb')]),
            (274, 3, [orientation]), (277, 3, [3]), (278, 4, [54]), (279, 4, [('size', 'thumb')]),
            (330, 4, [('ifd', 'preview'), ('ifd', 'raw')]), (34665, 4, [('ifd', 'exif')])]
    sub0 = [(254, 4, [1]), (259, 3, [6]), (513, 4, [('at', 'jpeg')]), (514, 4, [('size', 'jpeg')]), (531, 3, [2])]
    sub1 = [(254, 4, [0]), (256, 4, [1296]), (257, 4, [864]), (258, 3, [14]), (259, 3, [34713]), (262, 3, [32803]),
            (273, 4, [('at', 'sensor')]), (277, 3, [1]), (278, 4, [864]), (279, 4, [('size', 'sensor')])]
    exif = [(36864, 7, b'0230'), (36867, 2, ascii('2024:05:01 10:00:00'))]
    open(f'{out}/{name}', 'wb').write(tiff('MM', {'ifd0': ifd0, 'preview': sub0, 'raw': sub1, 'exif': exif},
                                           {'thumb': rgb(80, 54), 'jpeg': preview, 'sensor': fake_raw(4096)}))
nef(rd(f'{P}/p_1280x854.jpg'), 'nef_nikon_preview_1280x854_orientation6.nef')
# A NEF whose only JPEG is a 160x120 thumbnail: no usable preview (refused by name).
nef(rd(f'{P}/p_160x120.jpg'), 'nef_nikon_thumbnail_only.nef', orientation=1)

# ARW (Sony: little-endian TIFF, Make SONY): IFD0 holds the 1024x680 JPEG preview (Compression 6,
# its size, JPEGInterchangeFormat/Length) and the raw in a SubIFD (6000x4000 declared); IFD1,
# chained, a 160x106 JPEG thumbnail.
ifd0 = [(254, 4, [0]), (256, 4, [1024]), (257, 4, [680]), (259, 3, [6]), (271, 2, ascii('SONY')), (272, 2, ascii('ILCE-TEST')),
        (274, 3, [1]), (330, 4, [('ifd', 'raw')]), (513, 4, [('at', 'jpeg')]), (514, 4, [('size', 'jpeg')]), ('next', 'ifd1')]
ifd1 = [(254, 4, [1]), (256, 4, [160]), (257, 4, [106]), (259, 3, [6]), (513, 4, [('at', 'thumb')]), (514, 4, [('size', 'thumb')])]
raw = [(254, 4, [0]), (256, 4, [6000]), (257, 4, [4000]), (258, 3, [12]), (259, 3, [32767]), (262, 3, [32803]),
       (273, 4, [('at', 'sensor')]), (277, 3, [1]), (278, 4, [4000]), (279, 4, [('size', 'sensor')])]
open(f'{out}/arw_sony_preview_1024x680.arw', 'wb').write(tiff('II', {'ifd0': ifd0, 'ifd1': ifd1, 'raw': raw},
                                                             {'jpeg': rd(f'{P}/p_1024x680.jpg'), 'thumb': rd(f'{P}/p_160x106.jpg'), 'sensor': fake_raw(4096)}))

# DNG (DNGVersion 0xC612): IFD0 a 64x48 RGB thumbnail, orientation 8 (90 deg counter-clockwise);
# SubIFDs: the raw (1536x1024, 16-bit CFA) and a 768x512 preview coded as a JPEG strip
# (Compression 7, YCbCr): half the sensor's size, still a usable preview.
ifd0 = [(254, 4, [1]), (256, 4, [64]), (257, 4, [48]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]),
        (271, 2, ascii('Canon')), (272, 2, ascii('Canon EOS TEST')), (273, 4, [('at', 'thumb')]), (274, 3, [8]),
        (277, 3, [3]), (278, 4, [48]), (279, 4, [('size', 'thumb')]), (330, 4, [('ifd', 'raw'), ('ifd', 'preview')]),
        (50706, 1, [1, 4, 0, 0]), (50708, 2, ascii('Canon EOS TEST'))]
raw = [(254, 4, [0]), (256, 4, [1536]), (257, 4, [1024]), (258, 3, [16]), (259, 3, [1]), (262, 3, [32803]),
       (273, 4, [('at', 'sensor')]), (277, 3, [1]), (278, 4, [1024]), (279, 4, [('size', 'sensor')])]
preview = [(254, 4, [1]), (256, 4, [768]), (257, 4, [512]), (258, 3, [8, 8, 8]), (259, 3, [7]), (262, 3, [6]),
           (273, 4, [('at', 'jpeg')]), (277, 3, [3]), (278, 4, [512]), (279, 4, [('size', 'jpeg')])]
open(f'{out}/dng_preview_768x512_orientation8.dng', 'wb').write(tiff('II', {'ifd0': ifd0, 'raw': raw, 'preview': preview},
                                                                 {'thumb': rgb(64, 48), 'jpeg': rd(f'{P}/p_768x512.jpg'), 'sensor': fake_raw(4096)}))

# CR2 (Canon: little-endian TIFF, 'CR' and version 2.0 at byte 8): IFD0 the 1024x680 JPEG preview as
# a strip (Compression 6), orientation 1; IFD1 a 160x106 JPEG thumbnail; IFD2 an RGB thumbnail;
# IFD3 the sensor data as a lossless JPEG strip (SOF3, which libvips does not decode: never a
# preview). The sensor's size comes from the EXIF's PixelXDimension/PixelYDimension.
def cr2_head(): return b'II' + struct.pack('<HI', 42, 16) + b'CR' + bytes([2, 0]) + struct.pack('<I', 0)
ifds = {
    'ifd0': [(256, 3, [1024]), (257, 3, [680]), (258, 3, [8, 8, 8]), (259, 3, [6]), (271, 2, ascii('Canon')),
             (272, 2, ascii('Canon EOS TEST')), (273, 4, [('at', 'jpeg')]), (274, 3, [1]), (279, 4, [('size', 'jpeg')]),
             (34665, 4, [('ifd', 'exif')]), ('next', 'ifd1')],
    'ifd1': [(259, 3, [6]), (513, 4, [('at', 'thumb')]), (514, 4, [('size', 'thumb')]), ('next', 'ifd2')],
    'ifd2': [(256, 3, [32]), (257, 3, [24]), (258, 3, [8, 8, 8]), (259, 3, [1]), (262, 3, [2]), (273, 4, [('at', 'rgb')]),
             (277, 3, [3]), (278, 3, [24]), (279, 4, [('size', 'rgb')]), ('next', 'ifd3')],
    'ifd3': [(259, 3, [6]), (273, 4, [('at', 'sensor')]), (279, 4, [('size', 'sensor')])],
    'exif': [(36864, 7, b'0230'), (40962, 4, [5472]), (40963, 4, [3648])],
}
b = tiff('II', ifds, {'jpeg': rd(f'{P}/p_1024x680.jpg'), 'thumb': rd(f'{P}/p_160x106.jpg'), 'rgb': rgb(32, 24),
                      'sensor': rd(f'{P}/ljpeg.jpg')}, head=cr2_head())
open(f'{out}/cr2_canon_preview_1024x680.cr2', 'wb').write(b)

# RAF (Fujifilm): its own header (big-endian): the JPEG's offset and length at 84 and 88, the
# metadata directory's at 92 (one entry: 0x0100, the sensor's height and width), the sensor
# data's at 100. The orientation is the JPEG's own EXIF (3: upside down).
jpeg = rd(f'{P}/p_1024x680.jpg')
ifd = struct.pack('>H', 1) + struct.pack('>HHIHH', 0x0112, 3, 1, 3, 0) + struct.pack('>I', 0)
exif = b'Exif\0\0' + b'MM\x00\x2a' + struct.pack('>I', 8) + ifd
jpeg = jpeg[:2] + b'\xff\xe1' + struct.pack('>H', len(exif) + 2) + exif + jpeg[2:]
directory = struct.pack('>I', 1) + struct.pack('>HHHH', 0x0100, 4, 4000, 6000)
sensor = fake_raw(2048)
at_jpeg = 160; at_dir = at_jpeg + len(jpeg); at_sensor = at_dir + len(directory)
head = b'FUJIFILMCCD-RAW ' + b'0201' + b'FF383501' + b'X-TEST'.ljust(32, b'\0') + b'0100' + bytes(20) \
    + struct.pack('>IIIIII', at_jpeg, len(jpeg), at_dir, len(directory), at_sensor, len(sensor))
open(f'{out}/raf_fujifilm_preview_1024x680_orientation3.raf', 'wb').write(head.ljust(at_jpeg, b'\0') + jpeg + directory + sensor)

# CR3 (Canon: ISO base media, brand 'crx '), as its layout is published: in the moov's Canon
# 'uuid' box, CMT1 (a TIFF: IFD0 with the make, model, orientation 3 and the full size) and THMB
# (a 160x120 JPEG: its length at byte 16 of the box, the JPEG at 24); the top-level preview
# 'uuid' box holds, 8 bytes after its UUID, PRVW (its length at byte 20, the JPEG at 24).
def box(kind, body): return struct.pack('>I', 8 + len(body)) + kind + body
cmt1 = tiff('II', {'ifd0': [(256, 4, [6000]), (257, 4, [4000]), (271, 2, ascii('Canon')), (272, 2, ascii('Canon EOS TEST')), (274, 3, [3])]}, {})
thumb = rd(f'{P}/p_160x120.jpg')
thmb = box(b'THMB', struct.pack('>IHHIHH', 0, 160, 120, len(thumb), 1, 0) + thumb)
canon = box(b'uuid', bytes.fromhex('85c0b687820f11e08111f4ce462b6a48') + box(b'CNCV', b'CanonCR3_001/00.09.00/00.00.00')
            + box(b'CMT1', cmt1) + thmb)
preview = rd(f'{P}/p_1024x680.jpg')
prvw = box(b'PRVW', struct.pack('>IHHHHI', 0, 1, 1024, 680, 1, len(preview)) + preview)
cr3 = box(b'ftyp', b'crx ' + struct.pack('>I', 1) + b'crx isom') + box(b'moov', canon) \
    + box(b'uuid', bytes.fromhex('eaf42b5e1c984b88b9fbb7dc406e4d16') + struct.pack('>Q', 1) + prvw) + box(b'mdat', fake_raw(2048))
open(f'{out}/cr3_canon_preview_1024x680_orientation3.cr3', 'wb').write(cr3)
PY

# --- issue 18: nothing to show ---
# Files a notification could not show although their layout is sound: no samples at all (fragmented
# MP4 init segments, an AIFF whose SSND holds no sound, a WAV whose data chunk is empty), encrypted
# media (CENC written by ffmpeg, a hand-made cbcs 'encv' entry), codecs or item types the decoders
# here lack (xHE-AAC, VVC, IAMF, a HEIF 'unci' item), WAVE data that is not linear PCM, a fragmented
# MP4 that is real media, and an audiobook whose header declares 4.4 hours (over the 4-hour cap)
# although it holds one minute: preparing it trims its start. Sizes are rewritten box by box (the
# 'moov' of these sources comes after 'mdat', so no chunk offset moves).
echo "generate.sh: issue 18 (nothing to show)" >&2
KEY=00112233445566778899aabbccddeeff KID=000102030405060708090a0b0c0d0e0f
ff -f lavfi -i "$(vsrc 160 120 10 2)" "${X264[@]}" -crf 30 -g 10 -movflags frag_keyframe+empty_moov "${BX[@]}" "$S/frag_video.mp4"
ff -f lavfi -i "$(asrc 8000 2 1)" -c:a aac -b:a 16k -movflags frag_keyframe+empty_moov "${BX[@]}" "$S/frag_audio.m4a"
cp "$S/frag_video.mp4" "$V/mp4_fragmented_h264_160x120_2s.mp4"
ff -f lavfi -i "$(vsrc 160 120 10 1)" "${X264[@]}" -crf 30 "${BX[@]}" "$S/clear_video.mp4"
ff -f lavfi -i "$(vsrc 160 120 10 1)" "${X264[@]}" -crf 30 -encryption_scheme cenc-aes-ctr \
   -encryption_key $KEY -encryption_kid $KID "${BX[@]}" "$M/mp4_encrypted_cenc_160x120.mp4"
ff -f lavfi -i "$(asrc 8000 1 1)" -c:a aac -b:a 16k "${BX[@]}" "$S/clear_audio.m4a"
ff -f lavfi -i "$(asrc 8000 60 1)" -c:a aac -b:a 8k "${BX[@]}" "$S/minute.m4a"
# WAVE data that is not linear PCM: format tags 0x55 (MP3), 0x02, 0x11 (ADPCM), 0x06, 0x07 (A-law, mu-law).
for codec in libmp3lame:mp3 adpcm_ms:adpcm_ms adpcm_ima_wav:adpcm_ima pcm_alaw:alaw pcm_mulaw:mulaw; do
    ff -f lavfi -i "$(asrc 8000 1 1)" -c:a "${codec%%:*}" "${BX[@]}" "$A/wav_${codec#*:}_8k_mono_1s.wav"
done
python3 - "$S" "$M" "$A" "$I/heic_800x600.heic" <<'PY'
import struct, sys
S, M, A, heic = sys.argv[1:5]
def rd(p): return open(p, 'rb').read()
def wr(folder, name, b): open(f'{folder}/{name}', 'wb').write(b)
def box(t, body): return struct.pack('>I4s', 8 + len(body), t) + body

# A box tree: [type, head, children] (children None for a leaf, whose head is its whole body).
CONTAINERS = {b'moov', b'trak', b'mdia', b'minf', b'stbl', b'mvex', b'edts', b'dinf', b'udta'}
HEADS = {b'stsd': 8, b'avc1': 78, b'encv': 78, b'mp4a': 28}
def parse(b):
    nodes, i = [], 0
    while i + 8 <= len(b):
        size, t = struct.unpack('>I4s', b[i:i + 8]); body = b[i + 8:i + size]; i += size
        head = 0 if t in CONTAINERS else HEADS.get(t)
        nodes.append([t, body, None] if head is None else [t, body[:head], parse(body[head:])])
    return nodes
def build(nodes): return b''.join(box(t, h + (build(c) if c is not None else b'')) for t, h, c in nodes)
def find(nodes, *path):
    for n in nodes:
        if n[0] == path[0]: return n if len(path) == 1 else find(n[2], *path[1:])
def top(b, t):
    i = 0
    while i + 8 <= len(b):
        size, typ = struct.unpack('>I4s', b[i:i + 8])
        if typ == t: return i, size
        i += size
def with_moov(b, edit):  # the file with its (last) moov rebuilt after edit(tree)
    at, size = top(b, b'moov'); tree = parse(b[at:at + size]); edit(tree)
    assert at + size == len(b), 'moov must be last'
    return b[:at] + build(tree)
STBL = (b'moov', b'trak', b'mdia', b'minf', b'stbl')

# No samples: the init segments (ftyp + moov with empty tables + mvex) of fragmented MP4s.
for src, name in (('frag_video.mp4', 'mp4_init_segment_video.mp4'), ('frag_audio.m4a', 'm4a_init_segment_audio.m4a')):
    b = rd(f'{S}/{src}'); at, size = top(b, b'moov'); wr(M, name, b[:at + size])
# ...and one whose mvhd and a new mehd declare 30 s (timescale 1000 in mvhd).
b = rd(f'{S}/frag_video.mp4'); at, size = top(b, b'moov'); tree = parse(b[at:at + size])
mvhd = find(tree, b'moov', b'mvhd'); scale = struct.unpack('>I', mvhd[1][12:16])[0]
mvhd[1] = mvhd[1][:16] + struct.pack('>I', 30 * scale) + mvhd[1][20:]
find(tree, b'moov', b'mvex')[2].insert(0, [b'mehd', struct.pack('>II', 0, 30 * scale), None])
wr(M, 'mp4_init_segment_declares_30s.mp4', b[:at] + build(tree))
# An AIFF whose COMM declares 1 s of sound and whose SSND holds nothing after its header (the
# header a recorder writes before the first sample).
ext80 = bytes.fromhex('400bfa00000000000000')  # 8000 Hz as an 80-bit extended float
def chunk(t, body): return struct.pack('>4sI', t, len(body)) + body  # IFF sizes leave out the header
form = b'AIFF' + chunk(b'COMM', struct.pack('>hIh', 1, 8000, 16) + ext80) + chunk(b'SSND', struct.pack('>II', 0, 0))
wr(M, 'aiff_ssnd_empty.aif', b'FORM' + struct.pack('>I', len(form)) + form)
# A 44-byte WAV: fmt, then a data chunk of 0 bytes.
fmt = struct.pack('<4sIHHIIHH', b'fmt ', 16, 1, 1, 8000, 16000, 2, 16)
wr(M, 'wav_data_empty.wav', b'RIFF' + struct.pack('<I', 36) + b'WAVE' + fmt + b'data' + struct.pack('<I', 0))

# Encrypted: a cbcs 'encv' entry made by hand (frma avc1, schm cbcs, tenc with a constant IV).
def cbcs(tree):
    entry = find(tree, *STBL, b'stsd')[2][0]; assert entry[0] == b'avc1'
    tenc = box(b'tenc', struct.pack('>IBBBB', 1 << 24, 0, 0x19, 1, 0) + bytes(range(16)) + bytes([16]) + bytes(16))
    sinf = box(b'sinf', box(b'frma', b'avc1') + box(b'schm', struct.pack('>I4sI', 0, b'cbcs', 0x10000)) + box(b'schi', tenc))
    entry[0] = b'encv'; entry[2].append([b'sinf', sinf[8:], None])
wr(M, 'mp4_encrypted_cbcs_encv_160x120.mp4', with_moov(rd(f'{S}/clear_video.mp4'), cbcs))
# Encrypted media whose header libavformat cannot read (issue 29): the CENC file's 'tenc' says a
# per-sample IV of 5 bytes (8 or 16 are defined), so reading the header fails; it is still DRM.
b = bytearray(rd(f'{M}/mp4_encrypted_cenc_160x120.mp4')); at = b.find(b'tenc') - 4
assert b[at + 15] in (8, 16); b[at + 15] = 5
wr(M, 'mp4_encrypted_cenc_unreadable_header.mp4', bytes(b))

# Codecs FFmpeg 5.1 cannot decode: the AudioSpecificConfig says object type 42 (xHE-AAC, USAC:
# 31 escapes to 32 + 10, then 8000 Hz and mono); sample entries renamed to VVC and IAMF.
def usac(tree):
    mp4a = find(tree, *STBL, b'stsd')[2][0]; assert mp4a[0] == b'mp4a'
    asc = bytes([0xF9, 0x45, 0x88, 0x00])  # 11111 001010 1011 0001 000...
    dsi = b'\x05' + bytes([len(asc)]) + asc
    dcd = b'\x04' + bytes([13 + len(dsi)]) + struct.pack('>BBBBBII', 0x40, 0x15, 0, 0, 0, 16000, 16000) + dsi
    es = b'\x03' + bytes([3 + len(dcd) + 3]) + struct.pack('>HB', 1, 0) + dcd + b'\x06\x01\x02'
    mp4a[2] = [[b'esds', struct.pack('>I', 0) + es, None]]
wr(M, 'm4a_xhe_aac_object_type_42.m4a', with_moov(rd(f'{S}/clear_audio.m4a'), usac))
def rename(old, new, children=None):
    def edit(tree):
        entry = find(tree, *STBL, b'stsd')[2][0]; assert entry[0] == old; entry[0] = new
        if children is not None: entry[2] = children
    return edit
wr(M, 'mp4_vvc1_sample_entry.mp4', with_moov(rd(f'{S}/clear_video.mp4'), rename(b'avc1', b'vvc1')))
# IAMF keeps its configuration in an 'iacb' box (a placeholder here), not an 'esds'.
wr(M, 'm4a_iamf_sample_entry.m4a', with_moov(rd(f'{S}/clear_audio.m4a'), rename(b'mp4a', b'iamf', [[b'iacb', b'\x01', None]])))
# A HEIF whose image item is an ISO/IEC 23001-17 'unci' item (libheif 1.15 reads none).
b = bytearray(rd(heic)); at, size = top(b, b'meta')
i = b.index(b'iinf', at, at + size) - 4; end = i + struct.unpack('>I', b[i:i + 4])[0]
assert b.count(b'hvc1', i, end) >= 1
b[i:end] = b[i:end].replace(b'hvc1', b'unci'); wr(M, 'heic_unci_item.heic', bytes(b))

# Opus whose OpusHead asks for channel mapping family 3 (projection), which FFmpeg 5.1's decoder
# refuses as not implemented: the first Ogg page rewritten with the longer head and its CRC.
def ogg_crc(data):
    c = 0
    for x in data:
        c ^= x << 24
        for _ in range(8): c = ((c << 1) ^ 0x04C11DB7 if c & 0x80000000 else c << 1) & 0xFFFFFFFF
    return c
b = rd(f'{A}/ogg_opus_5s.opus'); count = b[26]; body = 27 + count; size = sum(b[27:body])
head = b[body:body + size]; assert head[:8] == b'OpusHead' and size == 19 and head[9] == 2
head = head[:18] + bytes([3, 1, 1, 0, 1])  # family 3, 1 stream, 1 coupled, channels 0 and 1
page = bytearray(b[:26] + bytes([1, len(head)]) + head); page[22:26] = bytes(4)
page[22:26] = struct.pack('<I', ogg_crc(page)); wr(M, 'opus_channel_mapping_family_3.opus', bytes(page) + b[body + size:])

# Caps on the work: a minute of 8 kHz AAC whose mvhd, tkhd and mdhd declare 4.4 hours (edit list dropped).
HOURS = 4.4
def audiobook(tree):
    for path, scale_at, duration_at in ((('moov', 'mvhd'), 12, 16), (STBL[:3] + (b'mdhd',), 12, 16)):
        n = find(tree, *[p.encode() if isinstance(p, str) else p for p in path])
        scale = struct.unpack('>I', n[1][scale_at:scale_at + 4])[0]
        n[1] = n[1][:duration_at] + struct.pack('>I', int(HOURS * 3600 * scale)) + n[1][duration_at + 4:]
    movie_scale = struct.unpack('>I', find(tree, b'moov', b'mvhd')[1][12:16])[0]
    tkhd = find(tree, b'moov', b'trak', b'tkhd')
    tkhd[1] = tkhd[1][:20] + struct.pack('>I', int(HOURS * 3600 * movie_scale)) + tkhd[1][24:]
    find(tree, b'moov', b'trak')[2] = [n for n in find(tree, b'moov', b'trak')[2] if n[0] != b'edts']
wr(A, 'm4a_audiobook_declares_4h24m.m4a', with_moov(rd(f'{S}/minute.m4a'), audiobook))
PY

# ---------------------------------------------------------------------------------------------
# The fixture list: file, kind (used only where the bytes carry no readable media), expected,
# purpose. Everything else in fixtures.tsv is measured.
cat > "$TMP/spec.tsv" <<'EOF'
images/jpeg_photo_1600x1200_q90.jpg	image	valid	photo-like baseline JPEG, q90
images/jpeg_large_4032x3024.jpg	image	valid	12 Mpx camera-sized JPEG (q80): downscale / pixel-budget input
images/jpeg_exif_orientation6_600x400.jpg	image	valid	EXIF Orientation=6 (APP1 after JFIF): stored landscape, displays 400x600 portrait
images/jpeg_progressive_800x600.jpg	image	valid	progressive JPEG
images/jpeg_greyscale_640x480.jpg	image	valid	single-channel greyscale JPEG
images/jpeg_cmyk_400x300.jpg	image	valid	CMYK JPEG (Adobe APP14), no ICC profile
images/png_rgba_transparency_320x240.png	image	valid	8-bit RGBA: alpha ramp 40..255 left to right with a 5x4 grid of fully transparent holes
images/png_rgb_opaque_400x300.png	image	valid	opaque 8-bit RGB PNG
images/png_palette_400x300.png	image	valid	palette (indexed, 8-bit) PNG
images/png_16bit_rgb_320x240.png	image	valid	16 bit/channel RGB PNG
images/png_apng_animated_160x120.png	image	valid	animated PNG (APNG, 12 frames at 10 fps, plays=0)
images/gif_animated_320x240_24f.gif	image	valid	animated GIF, 24 frames, 100 ms delays, loop forever
images/gif_static_320x240.gif	image	valid	static single-frame GIF
images/webp_lossy_800x600.webp	image	valid	lossy WebP (iOS does not show WebP attachments: must convert)
images/webp_alpha_320x240.webp	image	valid	lossy WebP with alpha
images/webp_animated_320x240.webp	image	valid	animated WebP (same frames and delays as the animated GIF)
images/heic_800x600.heic	image	valid	HEIC still (HEVC), libheif
images/avif_800x600.avif	image	valid	AVIF still (AV1), libheif
images/tiff_lzw_320x240.tif	image	valid	LZW TIFF (not an iOS attachment type: must convert)
images/bmp_24bit_160x120.bmp	image	valid	24-bit BMP (not an iOS attachment type: must convert)
images/jpeg_named_as.png	image	valid	extension lies: named .png, content is JPEG
images/jpeg_no_extension	image	valid	no file extension, content is JPEG
audio/mp3_stereo_44k_5s.mp3	audio	valid	MP3 CBR 128k with Info header
audio/m4a_aac_lc_5s.m4a	audio	valid	AAC-LC in M4A
audio/m4a_alac_22k_mono_5s.m4a	audio	valid	Apple Lossless in M4A
audio/aac_adts_5s.aac	audio	valid	raw ADTS AAC (no container)
audio/wav_s16le_16k_mono_5s.wav	audio	valid	16-bit PCM WAV
audio/aiff_s16be_16k_mono_5s.aif	audio	valid	16-bit PCM AIFF
audio/flac_22k_5s.flac	audio	valid	FLAC (not an iOS attachment type: must convert)
audio/ogg_opus_5s.opus	audio	valid	Ogg Opus (not an iOS attachment type: must convert)
audio/ogg_vorbis_5s.ogg	audio	valid	Ogg Vorbis (not an iOS attachment type: must convert)
audio/wav_s16le_8k_mono_40s.wav	audio	valid	40 s WAV for audio duration-cap tests
video/mp4_h264_aac_320x240_2s.mp4	video	valid	H.264 + AAC MP4, faststart (moov first)
video/mp4_hevc_aac_320x240_2s.mp4	video	valid	HEVC (hvc1 tag) + AAC MP4
video/mov_h264_aac_320x240_2s.mov	video	valid	QuickTime H.264 + AAC
video/webm_vp9_opus_320x240_2s.webm	video	valid	WebM VP9 + Opus (must transcode)
video/mp4_av1_320x240_2s.mp4	video	valid	AV1 in MP4, video only (must transcode)
video/avi_mpeg4_mp3_320x240_2s.avi	video	valid	AVI, MPEG-4 Part 2 (XVID tag) + MP3
video/mpg_mpeg2_mp2_320x240_2s.mpg	video	valid	MPEG-2 program stream (VOB-style packs), MPEG-2 video + MP2
video/ts_h264_aac_320x240_2s.ts	video	valid	MPEG-TS H.264 + AAC
video/mkv_h264_aac_320x240_2s.mkv	video	valid	Matroska H.264 + AAC (remux candidate)
video/mp4_h264_aac_rotation90_320x240.mp4	video	valid	tkhd display matrix rotating 90 deg clockwise (iPhone portrait style): coded 320x240, displays 240x320
video/mp4_h264_160x90_5fps_35s.mp4	video	valid	35 s tiny H.264 (video only) for duration-cap tests
video/mp4_h264_2560x1440_1s.mp4	video	valid	2560x1440 H.264 (video only) for pixel-cap tests
video/mp4_h264_aac_640x360_6s_gop1s.mp4	video	valid	keyframe every 25 frames (1 s), for trim / keyframe-seek tests
malformed/zero_bytes.jpg	other	malformed	zero-byte file with .jpg name
malformed/jpeg_truncated_half.jpg	image	malformed	first half of an 800x600 JPEG
malformed/png_truncated_half.png	image	malformed	first half of a 400x300 PNG (no IEND)
malformed/gif_no_trailer.gif	image	malformed	static GIF with the final 0x3B trailer byte removed
malformed/mp4_mdat_cut_half.mp4	video	malformed	faststart MP4 cut in the middle of mdat (moov intact, header promises 2 s)
malformed/mp4_header_then_garbage.mp4	video	malformed	real ftyp box, then a 'moov' box of random bytes
malformed/png_signature_then_garbage.png	image	malformed	PNG signature followed by random bytes
malformed/text_named_as.mp4	other	malformed	extension lies: plain text named .mp4
malformed/wav_data_claims_4gb.wav	audio	malformed	RIFF and data chunk sizes claim ~4 GiB, only 1 s of audio present
malformed/json_named_as.webp	other	malformed	extension lies: JSON error body named .webp
audio/wav_mp3_8k_mono_1s.wav	audio	valid	issue 18: MP3 data in WAVE (format tag 0x55): not handed over as .wav, remuxed to .mp3
audio/wav_adpcm_ms_8k_mono_1s.wav	audio	valid	issue 18: MS ADPCM in WAVE (format tag 0x02): transcoded to AAC
audio/wav_adpcm_ima_8k_mono_1s.wav	audio	valid	issue 18: IMA ADPCM in WAVE (format tag 0x11): transcoded to AAC
audio/wav_alaw_8k_mono_1s.wav	audio	valid	issue 18: A-law in WAVE (format tag 0x06): transcoded to AAC
audio/wav_mulaw_8k_mono_1s.wav	audio	valid	issue 18: mu-law in WAVE (format tag 0x07): transcoded to AAC
audio/m4a_audiobook_declares_4h24m.m4a	audio	capped	issue 18: 1 min of 8 kHz AAC whose mvhd/tkhd/mdhd declare 4.4 h (over the 4 h cap): a trim to 30 s is allowed, a whole decode is not
video/mp4_fragmented_h264_160x120_2s.mp4	video	valid	issue 18: fragmented MP4 (empty moov, moof/mdat fragments): real media
malformed/mp4_init_segment_video.mp4	video	malformed	issue 18: fragmented MP4 init segment alone (H.264): empty sample tables, mvex, no fragment
malformed/m4a_init_segment_audio.m4a	audio	malformed	issue 18: fragmented M4A init segment alone (AAC): empty sample tables, mvex, no fragment
malformed/mp4_init_segment_declares_30s.mp4	video	malformed	issue 18: init segment whose mvhd and mehd declare 30 s: still no sample
malformed/aiff_ssnd_empty.aif	audio	malformed	issue 18: AIFF whose COMM declares 1 s but whose SSND holds no sound
malformed/wav_data_empty.wav	audio	malformed	issue 18: 44-byte WAV, data chunk of 0 bytes
malformed/mp4_encrypted_cenc_160x120.mp4	video	refused	issue 18: CENC (cenc-aes-ctr) written by ffmpeg: encv, sinf/schm, senc
malformed/mp4_encrypted_cbcs_encv_160x120.mp4	video	refused	issue 18: hand-made cbcs encv sample entry (frma avc1, schm cbcs, tenc)
malformed/mp4_encrypted_cenc_unreadable_header.mp4	video	refused	issue 29: the CENC file with its tenc per-sample IV size set to 5: libavformat cannot read the header (invalid per-sample IV size value); encrypted, not corrupt, from every verb
malformed/m4a_xhe_aac_object_type_42.m4a	audio	refused	issue 18: AudioSpecificConfig object type 42 (xHE-AAC, USAC): FFmpeg 5.1 cannot decode it
malformed/mp4_vvc1_sample_entry.mp4	video	refused	issue 18: sample entry vvc1 (VVC): FFmpeg 5.1 has no decoder
malformed/m4a_iamf_sample_entry.m4a	audio	refused	issue 18: sample entry iamf (IAMF): FFmpeg 5.1 has no decoder
malformed/heic_unci_item.heic	image	refused	issue 18: HEIF image item of type unci (ISO/IEC 23001-17): libheif 1.15 cannot decode it
malformed/opus_channel_mapping_family_3.opus	audio	refused	issue 18: Ogg Opus with channel mapping family 3: FFmpeg 5.1's decoder says not implemented
EOF

# --- issue 13: playability -----------------------------------------------------------------
# What iOS does and does not decode, and what prepare must not lose silently: tiny (0.5 s,
# 160x90) H.264 beyond High profile (4:2:2, 10-bit, 4:4:4: re-encoded, never copied), HEVC Main 10
# (plays, copied) and HEVC 4:2:2 (range extensions: re-encoded); 5.1 sound (downmixed to stereo,
# noted); a 3-page TIFF (first page kept, noted); a 15 fps animated WebP (66/67 ms delays, 2.00 s:
# the GIF must last 2.00 s, not 2.10 s).
echo "generate.sh: issue 13 playability" >&2
P13="$(vsrc 160 90 10 0.5)"
ff -f lavfi -i "$P13" "${X264[@]}" -profile:v high422 -pix_fmt yuv422p -crf 30 -movflags +faststart "${BX[@]}" "$V/mp4_h264_high422_160x90.mp4"
ff -f lavfi -i "$P13" "${X264[@]}" -profile:v high10 -pix_fmt yuv420p10le -crf 30 -movflags +faststart "${BX[@]}" "$V/mp4_h264_high10_160x90.mp4"
ff -f lavfi -i "$P13" "${X264[@]}" -profile:v high444 -pix_fmt yuv444p -crf 30 -movflags +faststart "${BX[@]}" "$V/mp4_h264_high444_160x90.mp4"
ff -f lavfi -i "$P13" "${X265[@]}" -pix_fmt yuv420p10le -crf 32 -movflags +faststart "${BX[@]}" "$V/mp4_hevc_main10_160x90.mp4"
ff -f lavfi -i "$P13" "${X265[@]}" -pix_fmt yuv422p10le -crf 32 -movflags +faststart "${BX[@]}" "$V/mp4_hevc_422_10bit_160x90.mp4"
SIX='pan=5.1(side)|FL=c0|FR=c1|FC=0.5*c0+0.5*c1|LFE=0.3*c0|SL=0.6*c0|SR=0.6*c1'
ff -f lavfi -i "$(asrc 48000 0.5 2)" -af "$SIX" -c:a flac "${BX[@]}" "$A/flac_51side_48k_0.5s.flac"
# libopus takes 5.1 with back surrounds (Vorbis channel order), not 5.1(side).
ff -f lavfi -i "$(asrc 48000 0.5 2)" -af "pan=5.1|FL=c0|FR=c1|FC=0.5*c0+0.5*c1|LFE=0.3*c0|BL=0.6*c0|BR=0.6*c1" -c:a libopus -mapping_family 1 -b:a 128k "${BX[@]}" "$A/ogg_opus_51_0.5s.opus"
# Three different 160x90 crops of the clean picture the single-page TIFF is made from.
for n in 1 2 3; do vips crop "$S/clean_320.png" "$S/page$n.png" $(( (n - 1) * 80 )) $(( (n - 1) * 75 )) 160 90; done
vips arrayjoin "$S/page1.png $S/page2.png $S/page3.png" "$S/pages.v" --across 1
vips tiffsave "$S/pages.v" "$I/tiff_3pages_160x90.tif" --compression lzw --strip --page-height 90
ff -f lavfi -i "testsrc2=s=160x90:r=15:d=2" -frames:v 30 -c:v libwebp_anim -lossless 0 -q:v 50 -loop 0 "${BX[@]}" "$I/webp_animated_15fps_160x90.webp"
cat >> "$TMP/spec.tsv" <<'EOF13'
video/mp4_h264_high422_160x90.mp4	video	valid	H.264 High 4:2:2 (yuv422p): iOS does not decode it, prepare re-encodes to 8-bit 4:2:0
video/mp4_h264_high10_160x90.mp4	video	valid	H.264 High 10 (yuv420p10le): iOS does not decode it, prepare re-encodes to 8-bit 4:2:0
video/mp4_h264_high444_160x90.mp4	video	valid	H.264 High 4:4:4 Predictive (yuv444p): iOS does not decode it, prepare re-encodes to 8-bit 4:2:0
video/mp4_hevc_main10_160x90.mp4	video	valid	HEVC Main 10 4:2:0 (hvc1): plays, copied as it is
video/mp4_hevc_422_10bit_160x90.mp4	video	valid	HEVC range extensions 4:2:2 10-bit: iOS does not decode it, prepare re-encodes to H.264
audio/flac_51side_48k_0.5s.flac	audio	valid	5.1(side) FLAC: prepare downmixes to stereo AAC and says so
audio/ogg_opus_51_0.5s.opus	audio	valid	5.1 Opus (mapping family 1): prepare downmixes to stereo AAC and says so
images/tiff_3pages_160x90.tif	image	valid	3-page TIFF: prepare keeps the first page and says so
images/webp_animated_15fps_160x90.webp	image	valid	animated WebP, 30 frames at 15 fps (66/67 ms delays, 2.00 s): the GIF lasts 2.00 s
EOF13

# --- issue 13: HDR ----------------------------------------------------------------------------
# One SDR picture (320x180, 1 s, 25 fps, BT.709) and the same picture put into HDR with zscale
# (SDR white at 100 cd/m2, npl=100), so a tone-mapped poster frame or transcode can be held
# against the original: HDR10 (PQ, BT.2020, HEVC Main 10, mastering display and content light
# level SEI from x265), HLG (HEVC Main 10; both play on iOS and are copied), and VP9 Profile 2 PQ
# in WebM (iOS does not play it: transcoded to H.264, tone-mapped to SDR BT.709).
echo "generate.sh: issue 13 HDR" >&2
HSRC="$(vsrc 320 180 25 1)"
TO_HDR='zscale=tin=bt709:min=bt709:pin=bt709:rin=tv:m=2020_ncl:p=2020:r=tv:npl=100'
X265HDR="pools=1:frame-threads=1:wpp=0:log-level=error:colorprim=bt2020:colormatrix=bt2020nc:repeat-headers=1"
ff -f lavfi -i "$HSRC" "${X264[@]}" -crf 18 -color_primaries bt709 -color_trc bt709 -colorspace bt709 -color_range tv \
   -movflags +faststart "${BX[@]}" "$V/mp4_h264_sdr_original_320x180_1s.mp4"
ff -f lavfi -i "$HSRC" -vf "$TO_HDR:t=smpte2084,format=yuv420p10le" -c:v libx265 -preset fast -tag:v hvc1 -pix_fmt yuv420p10le -crf 18 \
   -x265-params "$X265HDR:transfer=smpte2084:hdr10=1:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400" \
   -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range tv -movflags +faststart "${BX[@]}" "$V/mp4_hevc_main10_hdr10_pq_320x180_1s.mp4"
ff -f lavfi -i "$HSRC" -vf "$TO_HDR:t=arib-std-b67,format=yuv420p10le" -c:v libx265 -preset fast -tag:v hvc1 -pix_fmt yuv420p10le -crf 18 \
   -x265-params "$X265HDR:transfer=arib-std-b67" \
   -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -color_range tv -movflags +faststart "${BX[@]}" "$V/mp4_hevc_main10_hlg_320x180_1s.mp4"
ff -f lavfi -i "$HSRC" -vf "$TO_HDR:t=smpte2084,format=yuv420p10le" -c:v libvpx-vp9 -profile:v 2 -pix_fmt yuv420p10le -crf 24 -b:v 0 \
   -deadline good -cpu-used 4 -row-mt 0 -color_primaries bt2020 -color_trc smpte2084 -colorspace bt2020nc -color_range tv \
   "${BX[@]}" "$V/webm_vp9_profile2_pq_320x180_1s.webm"
cat >> "$TMP/spec.tsv" <<'EOFHDR'
video/mp4_h264_sdr_original_320x180_1s.mp4	video	valid	issue 13 HDR: the SDR original (BT.709) the three HDR clips are made from, for brightness and SSIM comparisons
video/mp4_hevc_main10_hdr10_pq_320x180_1s.mp4	video	valid	issue 13 HDR: HDR10 (PQ, BT.2020, mastering display and MaxCLL 1000 SEI), HEVC Main 10: plays, copied with its tags
video/mp4_hevc_main10_hlg_320x180_1s.mp4	video	valid	issue 13 HDR: HLG (BT.2020), HEVC Main 10: plays, copied with its tags
video/webm_vp9_profile2_pq_320x180_1s.webm	video	valid	issue 13 HDR: VP9 Profile 2 PQ (BT.2020) in WebM: transcoded to H.264, tone-mapped to SDR BT.709
EOFHDR

# Every file written must be listed, and every listed file must exist.
( cd "$OUT" && find . -type f | sed 's|^\./||' | sort ) > "$TMP/written.txt"
cut -f1 "$TMP/spec.tsv" | sort > "$TMP/listed.txt"
if ! diff -u "$TMP/listed.txt" "$TMP/written.txt" >&2; then
    echo "generate.sh: fixture list and written files differ" >&2; exit 1
fi

echo "generate.sh: measuring" >&2
python3 "$HERE/measure.py" "$OUT" "$TMP/spec.tsv" > "$OUT/fixtures.tsv"

# Replace the old set only now that everything succeeded.
cd "$HERE"
rm -rf images audio video malformed fixtures.tsv formats
mv "$OUT"/images "$OUT"/audio "$OUT"/video "$OUT"/malformed "$OUT"/fixtures.tsv .
mv "$FMT" formats
echo "generate.sh: $(find images audio video malformed -type f | wc -l) fixtures, $(du -sh --apparent-size images audio video malformed fixtures.tsv | awk '{print $1}' | paste -sd+) (apparent); total TestMedia: $(du -sh . | cut -f1)" >&2
