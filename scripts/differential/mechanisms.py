"""Mechanisms: the disagreements of a run grouped by the one mechanism in AttachKit behind each
(decided by reading the files by hand; see the report of issue 29's research). Each rule is a
predicate over one file's record; a file is counted under the first rule that matches. A rule whose
count drops to zero after a fix is a class closed. `severity` orders the summary: wrong output
first, then false refusals, then wrong diagnoses and messages, then breadth (formats not read),
then disagreements where AttachKit is right.
"""

import re

from classify import av_streams, base, decoded_seconds, reference

WRONG_OUTPUT, FALSE_REFUSAL, WRONG_DIAGNOSIS, BREADTH, AGREED = range(5)
GROUPS = {WRONG_OUTPUT: "wrong output", FALSE_REFUSAL: "false refusal", WRONG_DIAGNOSIS: "wrong diagnosis or message",
          BREADTH: "breadth (a format not read)", AGREED: "AttachKit right (or both right)"}


def prepared(r):
    return ((r.get("ak") or {}).get("prepare") or {}).get("json") or {}


def error(r):
    return (prepared(r).get("error") or {}).get("message", "")


def deep_messages(r):
    deep = ((r.get("ak") or {}).get("deep") or {}).get("json") or {}
    return " | ".join(d.get("message", "") for d in deep.get("diagnostics", []))


def output_deep_messages(r):
    return " | ".join(d.get("message", "") for o in r.get("outputs", [])
                      for d in ((o.get("deep") or {}).get("json") or {}).get("diagnostics", []))


def fmt(r):
    return ((r.get("source") or {}).get("ffprobe") or {}).get("format") or ""


def magic(r):
    return bytes.fromhex((r.get("source") or {}).get("magic", ""))


def codecs(r):
    return {s.get("codec") for s in av_streams((r.get("source") or {}).get("ffprobe"))}


def has(r, prefix):
    return any(base(t) == prefix or t.startswith(prefix) for t in r.get("tags", []))


def late_start(r):
    return any((s.get("start") or 0) > 1.0 for s in av_streams((r.get("source") or {}).get("ffprobe")))


def decodes_as_declared(r):
    declared, decoded = (r["source"]["ffprobe"].get("duration") or 0), decoded_seconds(r["source"]) or 0
    return declared > 0 and decoded >= 0.9 * declared


RULES = [
    # --- wrong output ---
    ("transcode-keeps-leading-gap", WRONG_OUTPUT,
     "a transcoded sound whose decoder's first frame comes late keeps the gap: the M4A gets an empty edit "
     "(silence first) and a movie duration longer than its media, which AttachKit's own --deep then calls corrupt",
     lambda r: prepared(r).get("action") == "transcoded" and "but the container declares" in output_deep_messages(r)),
    ("fmp4-timeline-not-from-zero", WRONG_OUTPUT,
     "fragmented MP4 whose fragments start late (tfdt 10 s) or jump: the duration is the last end counted from 0, "
     "--deep says data is missing, prepare hands it back unchanged",
     lambda r: "mov" in fmt(r) and (late_start(r) or has(r, "probe-disagrees-decode"))
     and "but the container declares" in deep_messages(r)),
    ("cover-art-fails-prepare", WRONG_OUTPUT,
     "a playable file whose cover art does not decode fails to prepare as a whole (processing-failed)",
     lambda r: "cover art" in error(r)),
    ("matroska-laced-blocks", WRONG_OUTPUT,
     "Matroska blocks holding several laced frames (no timestamp per frame): the stream copy to M4A keeps a "
     "fraction of the sound and the input is blamed, or the cluster-duration check counts a block as one frame",
     lambda r: "matroska" in fmt(r) and ("found in the stream copy" in error(r)
                                          or ("last Cluster" in error(r) and decodes_as_declared(r)))),
    # --- false refusals ---
    ("jpeg-bytes-between-segments", FALSE_REFUSAL,
     "JPEG with bytes between marker segments (an APPn length one short, junk after APP0/COM, FF00 after APP14): "
     "libjpeg warns 'extraneous bytes before marker' and decodes it whole; the structure walk (or fail_on=warning) refuses",
     lambda r: magic(r)[:3] == b"\xff\xd8\xff" and re.search(
         r"expected a JPEG marker at byte|invalid marker FF00|extraneous bytes before marker", error(r))),
    ("png-ancillary-chunk-crc", FALSE_REFUSAL,
     "PNG whose ancillary chunk (cLLI, iCCP, tEXt) fails its CRC: libpng's default is to warn and drop the chunk",
     lambda r: re.search(r"CRC mismatch in chunk (?!IDAT|IHDR|PLTE|IEND)", error(r))),
    ("isobmff-trailing-bytes", FALSE_REFUSAL,
     "ISO-BMFF (AVIF, HEIC, MP4) with a few bytes after its last box: readers stop at the last whole box",
     lambda r: "where a box header should be" in error(r) or re.search(r"box '[^A-Za-z0-9]{4}' at byte", error(r))),
    ("ogg-last-page-cut", FALSE_REFUSAL,
     "Ogg whose last page is cut off: players drop the partial page",
     lambda r: re.search(r"page \d+ at byte \d+ needs \d+ bytes but the file ends", error(r))),
    ("ogg-bytes-between-pages", FALSE_REFUSAL,
     "Ogg with bytes between pages: demuxers resync on the next 'OggS'",
     lambda r: "no Ogg page at byte" in error(r) and reference(r) == "decodes"),
    ("riff-bad-size-outside-audio", FALSE_REFUSAL,
     "WAV whose sizes players ignore: a damaged chunk after 'data', a RIFF size smaller than the file, or near 4 GiB",
     lambda r: magic(r)[:4] == b"RIFF" and re.search(
         r"chunk '.{4}' at byte \d+ claims|stray byte\(s\) at byte 12 where a chunk|file has 42949\d+ bytes", error(r))),
    ("opus-preskip-in-duration", FALSE_REFUSAL,
     "Ogg Opus with a large pre-skip: the declared duration counts the pre-skip, the decode does not (--deep: data missing)",
     lambda r: "opus" in codecs(r) and "but the container declares" in deep_messages(r)),
    ("flac-trailing-id3v1", FALSE_REFUSAL,
     "FLAC ending in an ID3v1 tag: the tag rides in the last packet and --deep's decode of it fails (ffmpeg's does not)",
     lambda r: fmt(r) == "flac" and "does not decode (packet" in deep_messages(r) and reference(r) == "decodes"),
    ("musepack-sv8-opened-as-sv7", FALSE_REFUSAL,
     "Musepack SV8 ('MPCK') opened with libavformat's SV7 demuxer (mpc) instead of mpc8",
     lambda r: magic(r)[:4] == b"MPCK" and "musepack" in error(r)),
    ("sunraster-rle-length", FALSE_REFUSAL,
     "Sun raster with run-length data whose header length is the decoded size (as many writers set it)",
     lambda r: re.search(r"pixels at \d+ bits need \d+ bytes", error(r)) and reference(r) == "decodes"),
    ("tiff-libvips-cannot-decode", FALSE_REFUSAL,
     "TIFF libvips cannot decode (tiled with separate planes; rows per strip past the image) but FFmpeg can: "
     "called corrupt instead of decoded through FFmpeg (or refused as unsupported)",
     lambda r: re.search(r"tiff2vips|DumpModeDecode", error(r)) and reference(r) == "decodes"),
    ("tiff-ifd-loop", FALSE_REFUSAL,
     "TIFF whose IFD chain loops back: decoders show the pages before the loop",
     lambda r: "IFD chain loops" in error(r)),
    ("apng-bogus-frame-count", FALSE_REFUSAL,
     "APNG whose acTL declares an absurd frame count: refused over the cap before decoding the frames present",
     lambda r: prepared(r).get("error", {}).get("code") == "over-cap" and "frames" in error(r) and reference(r) == "decodes"),
    ("apev2-tag-read-as-audio", FALSE_REFUSAL,
     "MP3 or WavPack ending in an APEv2 tag: the tag's bytes are decoded as audio (FFmpeg warns too; tag readers and players skip it)",
     lambda r: "APEv2" in (r["source"].get("trailerTags") or []) and prepared(r).get("error", {}).get("code") == "corrupt"),
    ("aiff-wav-partial-last-frame", FALSE_REFUSAL,
     "AIFF/WAV whose sound data ends with part of a sample frame: the last packet fails to decode",
     lambda r: re.search(r"pcm_\w+\) does not decode", error(r))),
    ("mp3-resync-mid-stream", FALSE_REFUSAL,
     "MP3 with garbage or a cut frame mid-stream: decoders resync at the next frame",
     lambda r: "garbage between frames" in error(r)),
    ("decoder-error-players-conceal", FALSE_REFUSAL,
     "a packet the decoder rejects mid-stream (WMA, Speex, ADTS, WavPack): FFmpeg logs it and plays on",
     lambda r: has(r, "corrupt-ffmpeg-plays-through") and av_streams(r["source"]["ffprobe"], "audio")),
    # --- wrong diagnoses and messages ---
    ("ffmpeg-picture-variant-called-corrupt", WRONG_DIAGNOSIS,
     "a picture FFmpeg's decoder does not support in that variant (BMP bitfield masks, JPEG 2000 sample separation, "
     "DDS, PSD, SGI) is called corrupt ('the image does not decode: Invalid argument') rather than unsupported",
     lambda r: re.search(r"the image does not decode: (Invalid argument|Invalid data)|header gives no picture size", error(r))),
    ("mp3-duration-from-first-frame", WRONG_DIAGNOSIS,
     "VBR MP3 without a Xing/VBRI frame: the duration is estimated from the first frame's bitrate, so a 10 s "
     "file is 'over 30 s' and 'trimmed' by copying all of it",
     lambda r: fmt(r) == "mp3" and has(r, "probe-disagrees-decode")),
    ("mp4-media-segment-message", WRONG_DIAGNOSIS,
     "a DASH/HLS media segment without its init segment is 'unrecognized' or 'header cannot be read', "
     "never named as what it is",
     lambda r: has(r, "message-mismatch(MP4 media segment")),
    ("encrypted-segment-message", WRONG_DIAGNOSIS,
     "an encrypted fragment (senc/pssh) is called unrecognized or corrupt rather than encrypted",
     lambda r: has(r, "encrypted-called")),
    ("zero-rate-stream-accepted", WRONG_DIAGNOSIS,
     "a sound stream of 0 Hz or 0 channels (ADTS sampling-frequency index 15) passes probe and validate "
     "(fix: remux), then prepare fails writing the header (processing-failed)",
     lambda r: "writing the header failed" in error(r)),
    ("deep-and-prepare-disagree", WRONG_DIAGNOSIS,
     "validate --deep calls the file corrupt while prepare converts it (or the other way round)",
     lambda r: has(r, "ak-inconsistent")),
    # --- breadth ---
    ("format-not-read", BREADTH, "a format FFmpeg or libvips reads that AttachKit does not identify (by format)",
     lambda r: has(r, "unrecognized-but-ffmpeg-reads") or has(r, "refused-ffmpeg-guesses")
     or has(r, "refused-but-vips-decodes(unrecognized-type") or has(r, "unsupported-but-ffmpeg-reads")),
    # --- AttachKit right ---
    ("truncated", AGREED, "truncated: the file holds much less than it declares; FFmpeg decodes what is there silently",
     lambda r: has(r, "corrupt-truncated-ffmpeg-silent")),
    ("only-vips-decodes", AGREED,
     "only libvips (often through its ImageMagick loader, which AttachKit blocks) decodes it; FFmpeg fails too",
     lambda r: has(r, "refused-but-vips-decodes")),
    ("ffmpeg-lenient", AGREED, "damage FFmpeg ignores (CRC of IDAT/IHDR, truncated JPEG, PNG without IEND...)",
     lambda r: has(r, "corrupt-but-ffmpeg-decodes") or has(r, "deep-corrupt-but-ffmpeg-decodes")
     or has(r, "corrupt-ffmpeg-plays-through")),
    ("attachkit-reads-more", AGREED, "AttachKit converts a file FFmpeg's CLI cannot read (its output decodes cleanly)",
     lambda r: has(r, "accepted-input-ffmpeg-fails") and not has(r, "output-decode-errors")),
    ("decoders-disagree", AGREED, "FFmpeg and libvips disagree on a handed-back picture (FFmpeg's limits)",
     lambda r: has(r, "output-decoders-disagree") or has(r, "output-keeps-input-damage")),
]


def mechanism(r):
    """The first rule that matches a file with a disagreement; None for agreement."""
    if r.get("outcome", "").startswith("agree"):
        return None
    for name, group, _, rule in RULES:
        try:
            if rule(r):
                return name
        except (KeyError, TypeError, AttributeError):
            continue
    return "unclassified"


def breadth_detail(r):
    vips = (r.get("source") or {}).get("vips") or {}
    return fmt(r) or vips.get("loader") or "?"
