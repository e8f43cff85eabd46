#!/usr/bin/env python3
"""Measure the generated fixtures and print fixtures.tsv (called by generate.sh).

    measure.py ROOT SPEC.tsv > fixtures.tsv

SPEC rows are `file <TAB> kind <TAB> expected <TAB> purpose`. Every other column is measured
from the bytes with ffprobe / vipsheader, following the conventions of the shared corpus
manifest (shared/corpus/SOURCES.md):

- container: sniffed from the leading bytes (ftyp brand for the ISO family), not the extension;
- width/height: stored (coded) size, before EXIF orientation or a display matrix;
- duration_s: ffprobe's container duration; for animated GIF/WebP the sum of frame delays;
- frames: video frame count (nb_frames, else packets counted) or image pages/frames;
- note: purpose, then probe facts, then the result of a full decode
  (images: `vips avg` with fail_on=error; audio/video: `ffmpeg -f null`).

Exits non-zero if a fixture marked `valid` does not probe and decode cleanly. Malformed
fixtures that nevertheless decode cleanly are reported on stderr (and in their note).
Standard library only.
"""
import json
import os
import re
import subprocess
import sys

COLUMNS = ['file', 'kind', 'container', 'codec', 'width', 'height', 'duration_s', 'frames', 'expected', 'note']
IMAGE = {'jpeg', 'png', 'gif', 'webp', 'heic', 'heif', 'avif', 'tiff', 'bmp'}
IMAGE_CODEC = {'heic': 'hevc', 'heif': 'hevc', 'avif': 'av1'}
MULTIPAGE = {'gif', 'webp', 'tiff', 'heic', 'heif', 'avif'}


def run(args, cwd):
    p = subprocess.run(args, cwd=cwd, capture_output=True, text=True, errors='replace')
    return p.returncode, p.stdout, p.stderr


def clean(msg, limit=110):
    """One short line from a tool's stderr, without pointers, pids or clock times."""
    msg = re.sub(r' @ 0x[0-9a-f]+', '', msg)
    msg = re.sub(r'\([\w.-]+:\d+\): VIPS-WARNING \*\*: [\d:.]+: ', 'warning: ', msg)
    lines = []
    for line in msg.splitlines():          # the same warning is often printed once per thread
        if line.strip() and line not in lines:
            lines.append(line)
    msg = ' '.join(lines[:2])
    msg = ' '.join(msg.split())
    return msg[:limit].rstrip()


def num(x):
    """Seconds with at most 3 decimals, no trailing zeros (as in the corpus manifest)."""
    s = f'{float(x):.3f}'.rstrip('0').rstrip('.')
    return s if s != '-0' else '0'


def sniff(b):
    if not b:
        return 'empty'
    if b[:3] == b'\xff\xd8\xff':
        return 'jpeg'
    if b[:8] == b'\x89PNG\r\n\x1a\n':
        return 'png'
    if b[:6] in (b'GIF87a', b'GIF89a'):
        return 'gif'
    if b[:4] == b'RIFF':
        return {b'WEBP': 'webp', b'WAVE': 'wav', b'AVI ': 'avi'}.get(b[8:12], 'riff')
    if b[:4] == b'RF64':
        return 'rf64'
    if b[4:8] == b'ftyp':
        return {b'heic': 'heic', b'heix': 'heic', b'mif1': 'heif', b'avif': 'avif',
                b'M4A ': 'm4a', b'qt  ': 'mov'}.get(b[8:12], 'mp4')
    if b[:4] in (b'II*\x00', b'MM\x00*'):
        return 'tiff'
    if b[:2] == b'BM':
        return 'bmp'
    if b[:4] == b'FORM' and b[8:12] in (b'AIFF', b'AIFC'):
        return b[8:12].decode().lower()
    if b[:4] == b'fLaC':
        return 'flac'
    if b[:4] == b'OggS':
        return 'ogg'
    if b[:4] == b'\x1a\x45\xdf\xa3':
        head = b[:64]
        return 'webm' if b'webm' in head else 'matroska' if b'matroska' in head else 'ebml'
    if b[:4] == b'\x00\x00\x01\xba':
        return 'mpeg-ps'
    if len(b) > 376 and b[0] == b[188] == b[376] == 0x47:
        return 'mpeg-ts'
    if b[:3] == b'ID3':
        return 'mp3'
    if len(b) > 1 and b[0] == 0xff and (b[1] & 0xf6) == 0xf0:
        return 'aac-adts'
    if len(b) > 1 and b[0] == 0xff and (b[1] & 0xe0) == 0xe0 and (b[1] & 0x06):
        return 'mp3'
    try:
        text = b.decode('utf-8')
    except UnicodeDecodeError:
        return 'unknown'
    try:
        json.loads(text)
        return 'json'
    except ValueError:
        pass
    return 'text' if all(c.isprintable() or c in '\r\n\t' for c in text) else 'unknown'


def is_apng(b):
    """acTL chunk before the first IDAT."""
    i = 8
    while i + 8 <= len(b):
        n = int.from_bytes(b[i:i + 4], 'big')
        typ = b[i + 4:i + 8]
        if typ == b'acTL':
            return True
        if typ == b'IDAT':
            return False
        i += 12 + n
    return False


def vips_header(name, cwd):
    rc, out, err = run(['vipsheader', '-a', name], cwd)
    if rc != 0:
        return None, clean(err or out)
    fields = {}
    for line in out.splitlines()[1:]:
        k, sep, v = line.partition(': ')
        if sep:
            fields[k.strip()] = v.strip()
    return fields, None


def vips_decode(name, cwd, container):
    """Decode every pixel (all pages). Returns (error or None, warning or None)."""
    opts = 'fail_on=error' + (',n=-1' if container in MULTIPAGE else '')
    rc, out, err = run(['vips', 'avg', f'{name}[{opts}]'], cwd)
    if rc != 0:
        return clean(err or out or f'exit {rc}'), None
    return None, (clean(err) if err.strip() else None)


def fourcc(t):
    return t.decode('latin-1') if all(0x20 <= c < 0x7f for c in t) else '0x' + t.hex()


def structure_problems(b, container):
    """Byte-level checks the decoders may forgive: missing end markers, sizes past end of file."""
    n, found = len(b), []
    if container == 'jpeg' and not b.rstrip(b'\x00').endswith(b'\xff\xd9'):
        found.append('no JPEG EOI marker at end of file')
    elif container == 'png':
        i, seen_iend = 8, False
        while i + 8 <= n:
            size, typ = int.from_bytes(b[i:i + 4], 'big'), b[i + 4:i + 8]
            if i + 12 + size > n:
                found.append(f"PNG chunk '{fourcc(typ)}' at {i} claims {size} B, past end of file")
                break
            seen_iend |= typ == b'IEND'
            i += 12 + size
        if not seen_iend:
            found.append('no PNG IEND chunk')
    elif container == 'gif' and not b.endswith(b'\x3b'):
        found.append('no GIF trailer (0x3B) at end of file')
    elif container in ('wav', 'webp', 'avi', 'riff', 'aiff', 'aifc'):
        order = 'big' if container.startswith('aif') else 'little'
        declared = int.from_bytes(b[4:8], order) + 8
        if declared > n:
            found.append(f'{b[:4].decode()} size claims {declared} B, file has {n} B')
        i = 12
        while i + 8 <= n:
            size, typ = int.from_bytes(b[i + 4:i + 8], order), b[i:i + 4]
            if i + 8 + size > n:
                found.append(f"chunk '{fourcc(typ)}' claims {size} B, only {n - i - 8} B present")
                break
            i += 8 + size + (size & 1)
    elif container in ('mp4', 'mov', 'm4a', 'heic', 'heif', 'avif'):
        i = 0
        while i + 8 <= n:
            size, typ = int.from_bytes(b[i:i + 4], 'big'), b[i + 4:i + 8]
            if size == 1 and i + 16 <= n:
                size = int.from_bytes(b[i + 8:i + 16], 'big')
            elif size == 0:
                size = n - i
            if size < 8 or i + size > n:
                found.append(f"top-level box '{fourcc(typ)}' claims {size} B, only {n - i} B present")
                break
            i += size
    return found


def ffmpeg_decode(name, cwd):
    """Full decode to the null muxer. Returns (error or None, decoded seconds or None)."""
    rc, out, err = run(['ffmpeg', '-nostdin', '-hide_banner', '-v', 'error', '-i', name,
                        '-f', 'null', '-', '-progress', 'pipe:1', '-nostats'], cwd)
    times = [int(v) for v in re.findall(r'^out_time_us=(-?\d+)', out, re.M)]
    decoded = times[-1] / 1e6 if times and times[-1] > 0 else None
    if rc != 0 or err.strip():
        return clean(err or f'exit {rc}'), decoded
    return None, decoded


def ffprobe(name, cwd):
    rc, out, err = run(['ffprobe', '-v', 'error', '-count_packets', '-show_format', '-show_streams',
                        '-of', 'json', name], cwd)
    if rc != 0:
        return None, clean(err or f'exit {rc}')
    return json.loads(out), (clean(err) if err.strip() else None)


def keyframe_times(name, cwd):
    """Times of the decoded key frames of the first video stream, relative to its first frame.

    Decoded frames rather than packet flags: MPEG-PS packets do not line up with frames, and
    -skip_frame is ignored by some decoders (libdav1d, libvpx)."""
    rc, out, _ = run(['ffprobe', '-v', 'error', '-select_streams', 'v:0', '-show_entries',
                      'frame=best_effort_timestamp_time,key_frame', '-of', 'csv=p=0', name], cwd)
    frames = []
    for line in out.splitlines() if rc == 0 else []:
        parts = line.split(',')
        if len(parts) >= 2 and re.match(r'^-?[\d.]+$', parts[1]):
            frames.append((float(parts[1]), parts[0] == '1'))
    if not frames:
        return []
    first = min(t for t, _ in frames)
    return sorted(t - first for t, key in frames if key)


def measure_image(row, name, cwd, data, container):
    notes, problems = [], []
    fields, err = vips_header(name, cwd)
    if container == 'png' and is_apng(data):
        row['codec'] = 'apng'
    else:
        row['codec'] = IMAGE_CODEC.get(container, container)
    if fields is None:
        problems.append(f'vipsheader FAILED: {err}')
    else:
        row['width'], row['height'] = fields.get('width', ''), fields.get('height', '')
        pages = int(fields.get('n-pages', '1') or 1)
        row['frames'] = str(pages)
        bands = fields.get('bands', '')
        notes.append(f"vips: {fields.get('interpretation', '?')} {fields.get('format', '?')} {bands}-band")
        if 'palette-bit-depth' in fields or fields.get('palette') == '1':
            notes.append('palette')
        if fields.get('orientation', '1') not in ('', '1'):
            notes.append(f"orientation={fields['orientation']}")
        if fields.get('vips-loader') == 'magickload':
            notes.append('vips reads it only through ImageMagick (magickload)')
        if 'icc-profile-data' in fields:
            notes.append('ICC')
        if fields.get('interlaced') == '1':
            notes.append('interlaced')
        if fields.get('jpeg-multiscan') == '1':
            notes.append('progressive (multiscan)')
        if 'heif-bitdepth' in fields:
            notes.append(f"heif-bitdepth={fields['heif-bitdepth']}")
        if pages > 1 and 'delay' in fields:
            delays = [int(d) for d in fields['delay'].split()]
            row['duration_s'] = num(sum(delays) / 1000)
            notes.append('delays ' + ('%d ms each' % delays[0] if len(set(delays)) == 1 else 'ms ' + ','.join(map(str, delays))))
        if 'loop' in fields and (pages > 1 or row['codec'] == 'apng'):
            notes.append(f"loop={fields['loop']}")
        derr, warn = vips_decode(name, cwd, container)
        if derr:
            problems.append(f'vips decode FAILED: {derr}')
        elif warn:
            notes.append(f'vips {warn}')
    if row['codec'] == 'apng':
        probe, _ = ffprobe(name, cwd)
        if probe and probe.get('streams'):
            st = probe['streams'][0]
            row['frames'] = st.get('nb_read_packets', row['frames'])
            dur = probe['format'].get('duration') or st.get('duration')
            if dur and dur != 'N/A':
                row['duration_s'] = num(dur)
            notes.append(f"APNG: {row['frames']} frames per ffprobe; vips reads the default image only")
    ferr, _ = ffmpeg_decode(name, cwd)
    if problems:
        problems.append(f'ffmpeg decode also fails: {ferr}' if ferr else 'ffmpeg decodes it without errors')
    elif not ferr:
        notes.append('full decode OK (vips, ffmpeg)')
    elif container in ('heic', 'heif'):
        # FFmpeg 5.1 has no HEIF still-image demuxer; that is a fact about the tool, not the file.
        notes.append(f'full decode OK (vips); ffmpeg 5.1 cannot open HEIF stills ({ferr})')
    elif container == 'webp' and b'ANMF' in data[:4096]:
        # Nor does its WebP decoder support animation (ANIM/ANMF chunks).
        notes.append(f'full decode OK (vips); ffmpeg 5.1 cannot decode animated WebP ({ferr})')
    else:
        notes.append('full decode OK (vips)')
        problems.append(f'ffmpeg decode errors: {ferr}')
    return notes, problems


def measure_av(row, name, cwd, container):
    notes, problems = [], []
    probe, err = ffprobe(name, cwd)
    if probe is None:
        return notes, [f'ffprobe: {err}']
    streams = probe.get('streams', [])
    vids = [s for s in streams if s.get('codec_type') == 'video'
            and not s.get('disposition', {}).get('attached_pic')]
    auds = [s for s in streams if s.get('codec_type') == 'audio']
    if not vids and not auds:
        return notes, ['ffprobe: no audio or video streams']
    row['kind'] = 'video' if vids else 'audio'
    row['codec'] = '+'.join(s.get('codec_name', '?') for s in vids + auds)
    header = probe.get('format', {}).get('duration')
    if header not in (None, 'N/A'):
        row['duration_s'] = num(header)
    if container == 'aac-adts' and auds and auds[0].get('nb_read_packets') and auds[0].get('sample_rate'):
        # ffprobe estimates raw ADTS' duration from its bitrate; its frames (1024 samples each)
        # give it exactly, as AttachKit's probe counts them.
        row['duration_s'] = num(int(auds[0]['nb_read_packets']) * 1024 / int(auds[0]['sample_rate']))
    if vids:
        v = vids[0]
        row['width'], row['height'] = str(v.get('width', '')), str(v.get('height', ''))
        n = v.get('nb_frames') or v.get('nb_read_packets') or ''
        row['frames'] = '' if n in ('0', 'N/A') else str(n)
        facts = [v.get('pix_fmt', '?')]
        for sd in v.get('side_data_list', []):
            if 'rotation' in sd:
                facts.append(f"rotation={sd['rotation']}")
        sar = v.get('sample_aspect_ratio')
        if sar and sar not in ('1:1', '0:1'):
            facts.append(f'SAR={sar}')
        facts.append(f"{v.get('codec_name')} {v.get('profile', '')}".strip())
        if v.get('codec_tag_string', '').isalnum() and v.get('codec_tag_string') not in ('', '[0][0][0][0]'):
            facts.append(f"tag {v['codec_tag_string']}")
        fr = v.get('avg_frame_rate') or v.get('r_frame_rate')
        if fr and fr not in ('0/0',):
            a, _, b = fr.partition('/')
            facts.append(f'{num(int(a) / int(b or 1))} fps')
        kf = keyframe_times(name, cwd)
        if len(kf) > 1:
            facts.append('keyframes at ' + ','.join(num(t) for t in kf) + ' s')
        elif len(kf) == 1:
            facts.append('single keyframe')
        notes.extend(facts)
    for a in auds:
        notes.append(f"audio {a.get('codec_name')} {a.get('sample_rate')} Hz {a.get('channels')}ch")
    if err:
        problems.append(f'ffprobe warns: {err}')
    derr, decoded = ffmpeg_decode(name, cwd)
    if header not in (None, 'N/A') and decoded is not None:
        h = float(header)
        if abs(decoded - h) > max(0.25, 0.05 * h):
            problems.append(f'decoded {num(decoded)} s vs header {num(h)} s')
    if derr:
        problems.append(f'ffmpeg decode errors: {derr}')
    elif not problems:
        notes.append('full decode OK (ffmpeg)')
    return notes, problems


def measure(root, rel, kind, expected, purpose):
    path = os.path.join(root, rel)
    cwd, name = os.path.dirname(path), os.path.basename(path)
    data = open(path, 'rb').read()
    container = sniff(data)
    row = dict.fromkeys(COLUMNS, '')
    row.update(file=rel, kind=kind, container=container, expected=expected)
    notes, problems = [], []
    ext = os.path.splitext(rel)[1].lower().lstrip('.')
    problems.extend(structure_problems(data, container))
    if container == 'empty':
        row['kind'] = 'other'
        _, err = ffprobe(name, cwd)
        problems.append(f'ffprobe: {err}')
    elif container in IMAGE:
        row['kind'] = 'image'
        n, p = measure_image(row, name, cwd, data, container)
        notes, problems = n, problems + p
    elif container in ('json', 'text', 'unknown'):
        row['kind'] = 'other' if container != 'unknown' else kind
        _, err = ffprobe(name, cwd)
        problems.append(f'ffprobe: {err}' if err else 'ffprobe accepted it')
        if ext in ('jpg', 'jpeg', 'png', 'gif', 'webp', 'heic', 'avif', 'tif', 'tiff', 'bmp'):
            fields, verr = vips_header(name, cwd)
            problems.append(f'vipsheader FAILED: {verr}' if fields is None else 'vipsheader accepted it')
    else:
        n, p = measure_av(row, name, cwd, container)
        notes, problems = n, problems + p
    # Extension vs content (the corpus manifest's wording).
    ext_ok = {'jpg': 'jpeg', 'jpeg': 'jpeg', 'tif': 'tiff', 'aif': 'aiff', 'aiff': 'aiff', 'm4a': 'm4a',
              'mp4': 'mp4', 'mov': 'mov', 'mkv': 'matroska', 'mpg': 'mpeg-ps', 'ts': 'mpeg-ts',
              'aac': 'aac-adts', 'opus': 'ogg', 'ogg': 'ogg'}.get(ext, ext)
    if container not in ('empty',) and ext_ok != container and not (ext == 'mp4' and container in ('m4a', 'mov')):
        notes.insert(0, 'EXTENSION MISMATCH: ' + (f'bytes are {container}' if ext else f'no extension, bytes are {container}'))
    row['note'] = '; '.join([purpose] + notes + problems)
    return row, problems


def main():
    root, spec = sys.argv[1:3]
    print('\t'.join(COLUMNS))
    failures = 0
    for line in open(spec, encoding='utf-8'):
        line = line.rstrip('\n')
        if not line or line.startswith('#'):
            continue
        rel, kind, expected, purpose = line.split('\t')
        row, problems = measure(root, rel, kind, expected, purpose)
        print('\t'.join(row[c].replace('\t', ' ') for c in COLUMNS))
        if expected == 'valid' and problems:
            failures += 1
            print(f'measure.py: VALID fixture has problems: {rel}: {"; ".join(problems)}', file=sys.stderr)
        if expected == 'malformed' and not problems:
            print(f'measure.py: warning: malformed fixture probes and decodes cleanly: {rel}', file=sys.stderr)
    if failures:
        sys.exit(1)


if __name__ == '__main__':
    main()
