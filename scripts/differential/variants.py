#!/usr/bin/env python3
"""Generated variants for the differential harness: small files, each built to exercise one
mechanism (a class of disagreement found over other projects' test files, or one listed in issue
29), from ffmpeg's lavfi sources and byte patches. Python 3 standard library and ffmpeg only.

  scripts/differential/variants.py OUT_DIR        # writes OUT_DIR/NAME files, prints one line each
  scripts/differential.py --variants              # generates them in a temporary folder and runs them

Each variant's name says what it is; VARIANTS below says what it exercises.
"""

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path


def ff(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-y", *args], check=True)


def clip(out, *extra, seconds=2, audio=True, bframes=3, size="320x240"):
    """A small H.264 (with B-frames) + AAC clip."""
    inputs = ["-f", "lavfi", "-i", f"testsrc2=s={size}:r=25:d={seconds}"]
    if audio:
        inputs += ["-f", "lavfi", "-i", f"sine=f=440:d={seconds}"]
    codecs = ["-c:v", "libx264", "-preset", "veryfast", "-bf", str(bframes), "-g", "25", "-pix_fmt", "yuv420p"]
    ff(*inputs, *codecs, *(["-c:a", "aac", "-shortest"] if audio else []), *extra, str(out))


def tone(out, *codec, seconds=2.5, rate=44100):
    ff("-f", "lavfi", "-i", f"sine=f=440:d={seconds}:r={rate}", "-ac", "2", *codec, str(out))


def box_offsets(data, name, start=0, end=None):
    """Offsets of top-level boxes called `name` (ISO-BMFF), from `start` to `end`."""
    found, pos, end = [], start, len(data) if end is None else end
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        size = struct.unpack(">Q", data[pos + 8:pos + 16])[0] if size == 1 else (end - pos if size == 0 else size)
        if kind == name:
            found.append(pos)
        if size < 8:
            break
        pos += size
    return found


def png_chunk(kind, payload, crc=None):
    crc = zlib.crc32(kind + payload) if crc is None else crc
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc & 0xFFFFFFFF)


# --- display order, pixel aspect, extra tracks (issue 29: remuxes that lose display order / SAR) ---

def mkv_h264_bframes(d):
    clip(d / "mkv_h264_bframes.mkv")


def ts_h264_bframes(d):
    clip(d / "ts_h264_bframes.ts")


def mp4_empty_edit_bframes(d):
    clip(d / "tmp.mp4", audio=False)
    ff("-itsoffset", "0.5", "-i", str(d / "tmp.mp4"), "-c", "copy", str(d / "mp4_empty_edit_bframes.mp4"))


def mov_sar_4x3(d):
    clip(d / "mov_sar_4x3.mov", "-vf", "setsar=4/3")


def mkv_sar_4x3_copyable(d):
    clip(d / "tmp.mp4")
    ff("-i", str(d / "tmp.mp4"), "-c", "copy", "-aspect", "16:9", str(d / "mkv_sar_4x3_copyable.mkv"))


def mp4_rotation90(d):
    clip(d / "tmp.mp4")
    ff("-i", str(d / "tmp.mp4"), "-c", "copy", "-metadata:s:v:0", "rotate=90", str(d / "mov_rotation90.mov"))


def mp4_two_audio_tracks(d):
    ff("-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=2", "-f", "lavfi", "-i", "sine=d=2",
       "-f", "lavfi", "-i", "sine=f=880:d=2", "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264",
       "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", str(d / "mp4_two_audio_tracks.mp4"))


def mp4_subtitle_track(d):
    (d / "s.srt").write_text("1\n00:00:00,000 --> 00:00:01,000\nhello\n")
    clip(d / "tmp.mp4")
    ff("-i", str(d / "tmp.mp4"), "-i", str(d / "s.srt"), "-map", "0", "-map", "1", "-c:v", "copy", "-c:a", "copy",
       "-c:s", "mov_text", str(d / "mp4_subtitle_track.mp4"))


def mov_timecode_track(d):
    clip(d / "tmp.mp4")
    ff("-i", str(d / "tmp.mp4"), "-c", "copy", "-timecode", "01:00:00:00", str(d / "mov_timecode_track.mov"))


def mkv_attachment_font(d):
    clip(d / "tmp.mkv")
    (d / "font.ttf").write_bytes(b"\x00\x01\x00\x00" + bytes(60))
    ff("-i", str(d / "tmp.mkv"), "-c", "copy", "-attach", str(d / "font.ttf"), "-metadata:s:t",
       "mimetype=application/x-truetype-font", str(d / "mkv_attachment_font.mkv"))


# --- cover art (issue 29: valid files that fail to prepare because of bad cover art) ---

def cover_png(d):
    ff("-f", "lavfi", "-i", "testsrc2=s=64x64:d=1", "-frames:v", "1", str(d / "cover.png"))
    return d / "cover.png"


def m4a_cover_truncated(d):
    cover = cover_png(d)
    ff("-f", "lavfi", "-i", "sine=d=2", "-i", str(cover), "-map", "0", "-map", "1", "-c:a", "aac", "-c:v", "png",
       "-disposition:v", "attached_pic", str(d / "tmp.m4a"))
    data = bytearray((d / "tmp.m4a").read_bytes())
    at = data.find(b"IDAT")  # the cover's pixels: zero most of them, so the PNG no longer decodes
    data[at + 8: at + 8 + 200] = bytes(200)
    (d / "m4a_aac_cover_png_damaged.m4a").write_bytes(bytes(data))


def mp3_apic_truncated(d):
    ff("-f", "lavfi", "-i", "testsrc2=s=64x64:d=1", "-frames:v", "1", str(d / "cover.jpg"))
    ff("-f", "lavfi", "-i", "sine=d=2", "-i", str(d / "cover.jpg"), "-map", "0", "-map", "1", "-c:a", "libmp3lame",
       "-c:v", "copy", "-id3v2_version", "3", str(d / "tmp.mp3"))
    data = bytearray((d / "tmp.mp3").read_bytes())
    soi = data.find(b"\xff\xd8\xff")
    eoi = data.find(b"\xff\xd9", soi)
    data[soi + 400: eoi] = bytes(eoi - soi - 400)  # the picture's entropy data zeroed, its size kept
    (d / "mp3_apic_jpeg_damaged.mp3").write_bytes(bytes(data))


# --- damage players play through, and valid files called corrupt ---

def flac_id3v1_trailer(d):
    tone(d / "tmp.flac", "-c:a", "flac")
    tag = b"TAG" + b"Title".ljust(30, b"\0") + b"Artist".ljust(30, b"\0") + b"Album".ljust(30, b"\0") \
        + b"1986" + bytes(30) + bytes([0x11])
    (d / "flac_id3v1_trailer.flac").write_bytes((d / "tmp.flac").read_bytes() + tag)


def flac_24bit(d):
    tone(d / "flac_24bit.flac", "-c:a", "flac", "-sample_fmt", "s32")


def wav_riff_size_placeholder(d):
    tone(d / "tmp.wav", "-c:a", "pcm_s16le")
    data = bytearray((d / "tmp.wav").read_bytes())
    data[4:8] = b"\xff\xff\xff\xff"  # a streaming writer's placeholder: the size was never known
    at = data.find(b"data")
    data[at + 4: at + 8] = b"\xff\xff\xff\xff"
    (d / "wav_riff_and_data_size_ffffffff.wav").write_bytes(bytes(data))


def wav_riff_size_zero(d):
    tone(d / "tmp.wav", "-c:a", "pcm_s16le")
    data = bytearray((d / "tmp.wav").read_bytes())
    data[4:8] = bytes(4)
    at = data.find(b"data")
    data[at + 4: at + 8] = bytes(4)
    (d / "wav_riff_and_data_size_zero.wav").write_bytes(bytes(data))


def ogg_last_page_cut(d):
    tone(d / "tmp.ogg", "-c:a", "libvorbis", seconds=5)
    data = (d / "tmp.ogg").read_bytes()
    last = data.rfind(b"OggS")
    (d / "ogg_vorbis_last_page_cut.ogg").write_bytes(data[: last + (len(data) - last) // 2])


def png_ancillary_crc(d):
    cover = cover_png(d)
    data = cover.read_bytes()
    at = data.find(b"IDAT") - 4
    text = png_chunk(b"tEXt", b"Comment\0bad crc", crc=0x12345678)
    (d / "png_text_chunk_bad_crc.png").write_bytes(data[:at] + text + data[at:])


def png_iccp_crc(d):
    cover = cover_png(d)
    data = cover.read_bytes()
    at = data.find(b"IDAT") - 4
    icc = b"sRGB\0\0" + zlib.compress(bytes(128))
    (d / "png_iccp_chunk_bad_crc.png").write_bytes(data[:at] + png_chunk(b"iCCP", icc, crc=0) + data[at:])


def trailing_garbage(d):
    clip(d / "tmp.mp4")
    (d / "mp4_trailing_4_zero_bytes.mp4").write_bytes((d / "tmp.mp4").read_bytes() + bytes(4))
    (d / "mp4_trailing_4_bytes.mp4").write_bytes((d / "tmp.mp4").read_bytes() + b"\xde\xad\xbe\xef")
    heic = Path(__file__).resolve().parents[2] / "TestMedia" / "images" / "heic_800x600.heic"
    if heic.exists():
        (d / "heic_trailing_4_bytes.heic").write_bytes(heic.read_bytes() + b"\xde\xad\xbe\xef")


def mp3_frame_cut(d):
    tone(d / "tmp.mp3", "-c:a", "libmp3lame", "-b:a", "128k", seconds=3)
    data = (d / "tmp.mp3").read_bytes()
    frames = [i for i in range(len(data) - 1) if data[i] == 0xFF and data[i + 1] == 0xFB]
    cut = frames[len(frames) // 2] + 100  # 40 bytes missing inside one frame mid-stream
    (d / "mp3_40_bytes_missing_midstream.mp3").write_bytes(data[:cut] + data[cut + 40:])


def mp3_xing_truncated(d):
    tone(d / "tmp.mp3", "-c:a", "libmp3lame", seconds=30)
    data = (d / "tmp.mp3").read_bytes()
    (d / "mp3_xing_declares_30s_holds_2s.mp3").write_bytes(data[: len(data) // 15])


def bmp_bitfields(d):
    w, h = 4, 2
    pixels = b"".join(struct.pack("<I", 0xFF0000FF | (x * 0x00202000)) for x in range(w * h))
    header = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 32, 3, len(pixels), 2835, 2835, 0, 0)
    masks = struct.pack("<III", 0xFF000000, 0x00000FF0, 0x00FF0000)  # bmpsuite g/rgb32bf.bmp's masks
    body = header + masks + pixels
    offset = 14 + 40 + 12
    (d / "bmp_bitfields_rgbx_masks.bmp").write_bytes(b"BM" + struct.pack("<IHHI", 14 + len(body), 0, 0, offset) + body)


def apng_num_frames_invalid(d):
    apng = Path(__file__).resolve().parents[2] / "TestMedia" / "images" / "png_apng_animated_160x120.png"
    if not apng.exists():
        return
    data = bytearray(apng.read_bytes())
    at = data.find(b"acTL")
    data[at + 4: at + 8] = struct.pack(">I", 0x80000001)
    data[at + 12: at + 16] = struct.pack(">I", zlib.crc32(bytes(data[at: at + 12])))
    (d / "apng_actl_num_frames_2147483649.png").write_bytes(bytes(data))


# --- wrong diagnoses (issue 29: CENC called corrupt, placeholder durations in fragmented MP4, ...) ---

def fmp4_placeholder_duration(d):
    clip(d / "tmp.mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof", seconds=4)
    data = bytearray((d / "tmp.mp4").read_bytes())
    moov = box_offsets(data, b"moov")[0]
    mvhd = data.find(b"mvhd", moov) - 4
    version = data[mvhd + 8]
    timescale_at = mvhd + (28 if version == 1 else 20)
    timescale = struct.unpack(">I", data[timescale_at:timescale_at + 4])[0]
    if version == 0:
        data[timescale_at + 4: timescale_at + 8] = struct.pack(">I", 3900 * timescale)
    (d / "fmp4_mvhd_declares_3900s_holds_4s.mp4").write_bytes(bytes(data))


def fmp4_first_fragment_at_10s(d):
    """A fragmented MP4 cut from a live stream: every fragment's decode time (tfdt) starts at 10 s."""
    clip(d / "tmp.mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof", seconds=4)
    data = bytearray((d / "tmp.mp4").read_bytes())
    scales, at = [], data.find(b"mdhd")
    while at > 0:
        version = data[at + 4]
        scales.append(struct.unpack(">I", data[at + (24 if version == 1 else 16): at + (28 if version == 1 else 20)])[0])
        at = data.find(b"mdhd", at + 4)
    at = data.find(b"tfdt")
    while at > 0:
        track = struct.unpack(">I", data[data.rfind(b"tfhd", 0, at) + 8: data.rfind(b"tfhd", 0, at) + 12])[0]
        shift = 10 * scales[track - 1]
        if data[at + 4] == 1:
            data[at + 8: at + 16] = struct.pack(">Q", struct.unpack(">Q", data[at + 8: at + 16])[0] + shift)
        else:
            data[at + 8: at + 12] = struct.pack(">I", struct.unpack(">I", data[at + 8: at + 12])[0] + shift)
        at = data.find(b"tfdt", at + 4)
    (d / "fmp4_fragments_start_at_10s.mp4").write_bytes(bytes(data))


def mp4_cenc(d):
    clip(d / "tmp.mp4")
    ff("-i", str(d / "tmp.mp4"), "-c", "copy", "-encryption_scheme", "cenc-aes-ctr",
       "-encryption_key", "76a6c65c5ea762046bd749a2e632ccbb", "-encryption_kid", "a7e61c373e219033c21091fa607bf3b8",
       str(d / "mp4_cenc_aes_ctr.mp4"))


def ts_audio_only(d):
    for codec, name in (("ac3", "ts_ac3_audio_only.ts"), ("mp2", "ts_mp2_audio_only.ts"), ("aac", "ts_aac_audio_only.ts")):
        tone(d / name, "-c:a", codec, "-f", "mpegts")
    tone(d / "ts_dts_audio_only.ts", "-c:a", "dca", "-strict", "-2", "-ar", "48000", "-f", "mpegts", rate=48000)


# --- reproducers of classes found over ../shared/peers ---

def ogg_crc(page):
    """Ogg's page checksum: CRC-32, polynomial 0x04C11DB7, not reflected, over the page with its CRC field zeroed."""
    crc = 0
    for byte in page:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
    return crc


def opus_large_preskip(d):
    tone(d / "tmp.opus", "-c:a", "libopus", seconds=4, rate=48000)
    data = bytearray((d / "tmp.opus").read_bytes())
    head = data.find(b"OpusHead")
    data[head + 10: head + 12] = struct.pack("<H", 48000)  # pre-skip: 1 s of the stream is decoder warm-up
    size = 27 + data[26] + sum(data[27:27 + data[26]])
    data[22:26] = bytes(4)
    data[22:26] = struct.pack("<I", ogg_crc(bytes(data[:size])))
    (d / "opus_preskip_1s.opus").write_bytes(bytes(data))


def jpeg_junk_between_segments(d):
    ff("-f", "lavfi", "-i", "testsrc2=s=64x48:d=1", "-frames:v", "1", str(d / "tmp.jpg"))
    data = (d / "tmp.jpg").read_bytes()
    app0_end = 4 + struct.unpack(">H", data[4:6])[0]  # JFIF APP0 then 5 bytes no marker starts
    (d / "jpeg_5_junk_bytes_after_app0.jpg").write_bytes(data[:app0_end] + b"hello" + data[app0_end:])


def sunraster_rle_length(d):
    ff("-f", "lavfi", "-i", "color=c=white:s=640x400:d=1", "-frames:v", "1", "-pix_fmt", "monow",
       "-c:v", "sunrast", "-f", "image2", str(d / "tmp.ras"))
    data = bytearray((d / "tmp.ras").read_bytes())
    if struct.unpack(">I", data[20:24])[0] == 2:  # run-length coded: declare the decoded size, as many writers do
        data[16:20] = struct.pack(">I", 640 * 400 // 8)
        (d / "sunraster_rle_declares_decoded_length.ras").write_bytes(bytes(data))


def wav_chunk_after_data(d):
    tone(d / "tmp.wav", "-c:a", "pcm_s16le")
    data = bytearray((d / "tmp.wav").read_bytes())
    junk = b"ISTt" + struct.pack("<I", 1224736768) + b"x" * 16  # a damaged chunk after the audio
    data += junk
    data[4:8] = struct.pack("<I", len(data) - 8)
    (d / "wav_damaged_chunk_after_data.wav").write_bytes(bytes(data))


def aiff_odd_ssnd(d):
    tone(d / "tmp.aif", "-c:a", "pcm_s16be")
    data = bytearray((d / "tmp.aif").read_bytes())
    ssnd = data.find(b"SSND")
    size = struct.unpack(">I", data[ssnd + 4: ssnd + 8])[0]
    data[ssnd + 4: ssnd + 8] = struct.pack(">I", size + 1)  # one byte more than whole sample frames
    data[ssnd + 8 + size: ssnd + 8 + size] = b"\0\0"  # the byte, and the pad byte of an odd chunk
    data[4:8] = struct.pack(">I", len(data) - 8)
    (d / "aiff_ssnd_ends_with_partial_frame.aif").write_bytes(bytes(data))


def tiff_tiled_planar(d):
    """A 32x32 RGB TIFF in 16x16 tiles with separate planes (PlanarConfiguration 2), uncompressed."""
    w = h = 32
    tiles = [bytes([(x * 8) if plane == 0 else (y * 8) if plane == 1 else 128 for y in range(16) for x in range(16)])
             for plane in range(3) for y in range(2) for x in range(2)]
    entries = [(256, 3, 1, w), (257, 3, 1, h), (258, 3, 3, None), (259, 3, 1, 1), (262, 3, 1, 2),
               (277, 3, 1, 3), (284, 3, 1, 2), (322, 3, 1, 16), (323, 3, 1, 16), (324, 4, len(tiles), None),
               (325, 4, len(tiles), None)]
    ifd_at = 8
    extra_at = ifd_at + 2 + 12 * len(entries) + 4
    bits_at, offsets_at = extra_at, extra_at + 6
    counts_at = offsets_at + 4 * len(tiles)
    data_at = counts_at + 4 * len(tiles)
    out = b"II*\0" + struct.pack("<I", ifd_at) + struct.pack("<H", len(entries))
    for tag, kind, count, value in entries:
        if tag == 258:
            value = bits_at
        elif tag == 324:
            value = offsets_at
        elif tag == 325:
            value = counts_at
        out += struct.pack("<HHI", tag, kind, count) + (struct.pack("<HH", value, 0) if kind == 3 and count == 1 else struct.pack("<I", value))
    out += struct.pack("<I", 0) + struct.pack("<HHH", 8, 8, 8)
    out += b"".join(struct.pack("<I", data_at + 256 * i) for i in range(len(tiles)))
    out += b"".join(struct.pack("<I", 256) for _ in tiles) + b"".join(tiles)
    (d / "tiff_tiled_planar_separate.tif").write_bytes(out)


def vint(value, length=8):
    return bytes([1 << (8 - length)]) + value.to_bytes(length, "big")[1:] if length == 8 else None


def ebml_read(data, pos):
    """(id, size or None for unknown, header length) of the EBML element at pos."""
    first = data[pos]
    id_len = 1 + (8 - first.bit_length()) if first else 1
    element = int.from_bytes(data[pos:pos + id_len], "big")
    lead = data[pos + id_len]
    size_len = 9 - lead.bit_length()
    raw = int.from_bytes(data[pos + id_len:pos + id_len + size_len], "big") & ((1 << (7 * size_len)) - 1)
    return element, (None if raw == (1 << (7 * size_len)) - 1 else raw), id_len + size_len


def element(element_id, payload):
    return element_id.to_bytes((element_id.bit_length() + 7) // 8, "big") + vint(len(payload)) + payload


def xiph_lace(blocks):
    """One SimpleBlock holding the frames of `blocks` (same track), Xiph-laced."""
    head = blocks[0][:4]  # track number (1 byte), timecode, flags
    frames = [b[4:] for b in blocks]
    sizes = b"".join(b"\xff" * (len(f) // 255) + bytes([len(f) % 255]) for f in frames[:-1])
    return head[:3] + bytes([head[3] | 0x02]) + bytes([len(frames) - 1]) + sizes + b"".join(frames)


def mka_laced(d):
    """ALAC in Matroska with its frames laced 8 to a block (as mkvmerge writes audio): the laced
    frames carry no timestamp of their own."""
    tone(d / "tmp.mka", "-c:a", "alac", seconds=5)
    data = (d / "tmp.mka").read_bytes()
    header_id, header_size, header_len = ebml_read(data, 0)
    segment_at = header_len + header_size
    _, segment_size, segment_len = ebml_read(data, segment_at)
    pos, end, children = segment_at + segment_len, len(data), []
    while pos < end:
        child, size, length = ebml_read(data, pos)
        body = data[pos + length: pos + length + size]
        if child == 0x1F43B675:  # Cluster: lace its SimpleBlocks 8 at a time
            inner, run, q = [], [], 0
            while q < len(body):
                e, esize, elen = ebml_read(body, q)
                payload = body[q + elen: q + elen + esize]
                if e == 0xA3:
                    run.append(payload)
                    if len(run) == 8:
                        inner.append(element(0xA3, xiph_lace(run)))
                        run = []
                else:
                    inner.append(body[q: q + elen + esize])
                q += elen + esize
            if run:
                inner.append(element(0xA3, xiph_lace(run)))
            children.append(element(child, b"".join(inner)))
        elif child not in (0x114D9B74, 0x1C53BB6B, 0xEC):  # SeekHead and Cues would point wrong: dropped
            children.append(data[pos: pos + length + size])
        pos += length + size
    out = data[:segment_at] + element(0x18538067, b"".join(children))
    (d / "mka_alac_xiph_laced.mka").write_bytes(out)


def mp3_vbr_without_xing(d):
    """10 s of VBR MP3 with no Xing/VBRI frame, starting with 2 s of silence (the lowest bitrate):
    a duration estimated from the first frame's bitrate is 3.4 times too long."""
    ff("-f", "lavfi", "-i", "anullsrc=r=44100:cl=mono", "-f", "lavfi", "-i", "anoisesrc=d=8:r=44100:a=0.5",
       "-filter_complex", "[0]atrim=0:2[s];[s][1]concat=n=2:v=0:a=1", "-c:a", "libmp3lame", "-q:a", "0",
       "-write_xing", "0", str(d / "mp3_vbr_10s_no_xing_starts_silent.mp3"))


def mp4_media_segment(d):
    """A DASH/HLS media segment alone: the fragments of a fragmented MP4 without its init segment."""
    clip(d / "tmp.mp4", "-movflags", "frag_keyframe+empty_moov+default_base_moof", seconds=2)
    data = (d / "tmp.mp4").read_bytes()
    (d / "mp4_media_segment_without_init.m4s").write_bytes(data[box_offsets(data, b"moof")[0]:])


def musepack_sv8(d):
    """Musepack SV8 (the 'MPCK' stream format), when Debian's musepack-tools (mpcenc) is installed."""
    if not shutil.which("mpcenc"):
        print("variant musepack_sv8 skipped: mpcenc (Debian package musepack-tools) is not installed", file=sys.stderr)
        return
    tone(d / "tmp.wav", "-c:a", "pcm_s16le", seconds=2)
    subprocess.run(["mpcenc", "--silent", str(d / "tmp.wav"), str(d / "musepack_sv8.mpc")], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def mod_tracker(d):
    """A 4-channel ProTracker module ('M.K.'): one pattern playing one square-wave sample."""
    samples = struct.pack(">22sHBBHH", b"square", 1000, 0, 64, 0, 1000) + bytes(30 * 30)
    pattern = bytearray(64 * 4 * 4)
    for row in range(0, 64, 8):  # note C-3 (period 214) with sample 1, every 8th row of channel 0
        pattern[row * 16: row * 16 + 4] = bytes([0x00, 214, 0x10, 0x00])
    header = b"differential".ljust(20, b"\0") + samples + bytes([1, 127]) + bytes(128) + b"M.K."
    wave = bytes(([0x40] * 16 + [0xC0] * 16) * 62 + [0] * 16)
    (d / "mod_protracker_4ch.mod").write_bytes(header + bytes(pattern) + wave)


def adts_escape_rate(d):
    """ADTS whose sampling-frequency index is 15 (the escape ADTS cannot carry): 0 Hz, 0 channels."""
    ff("-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac", "-f", "adts", str(d / "tmp.aac"))
    data, at = bytearray((d / "tmp.aac").read_bytes()), 0
    while at + 7 <= len(data) and data[at] == 0xFF and data[at + 1] & 0xF0 == 0xF0:
        data[at + 2] = (data[at + 2] & 0xC3) | (15 << 2)
        at += ((data[at + 3] & 3) << 11) | (data[at + 4] << 3) | (data[at + 5] >> 5)
    (d / "adts_sampling_index_15.aac").write_bytes(bytes(data))


VARIANTS = [
    mkv_h264_bframes, ts_h264_bframes, mp4_empty_edit_bframes, mov_sar_4x3, mkv_sar_4x3_copyable, mp4_rotation90,
    mp4_two_audio_tracks, mp4_subtitle_track, mov_timecode_track, mkv_attachment_font,
    m4a_cover_truncated, mp3_apic_truncated,
    flac_id3v1_trailer, flac_24bit, wav_riff_size_placeholder, wav_riff_size_zero, ogg_last_page_cut,
    png_ancillary_crc, png_iccp_crc, trailing_garbage, mp3_frame_cut, mp3_xing_truncated, bmp_bitfields,
    apng_num_frames_invalid,
    fmp4_placeholder_duration, fmp4_first_fragment_at_10s, mp4_cenc, ts_audio_only,
    opus_large_preskip, jpeg_junk_between_segments, sunraster_rle_length, wav_chunk_after_data,
    aiff_odd_ssnd, tiff_tiled_planar, mka_laced, mp3_vbr_without_xing, mp4_media_segment,
    musepack_sv8, mod_tracker, adts_escape_rate,
]


def generate(folder):
    """Writes every variant into `folder` (scratch files removed); returns the names written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for make in VARIANTS:
        try:
            make(folder)
        except (subprocess.CalledProcessError, OSError, IndexError, ValueError) as error:
            print(f"variant {make.__name__} not generated: {error}", file=sys.stderr)
        for scratch in folder.glob("tmp.*"):
            scratch.unlink()
    for scratch in ("s.srt", "font.ttf", "cover.png", "cover.jpg"):
        (folder / scratch).unlink(missing_ok=True)
    return sorted(p.name for p in folder.iterdir())


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    for name in generate(sys.argv[1]):
        print(name)
