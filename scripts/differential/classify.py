"""Classifies one file's facts (from facts.py) into findings ("tags") and one outcome.

A tag is `name` or `name(detail)`. The outcome is the most severe tag (order of SEVERITY), or
`agree-ok` (prepared, every output check passes, probe agrees) / `agree-refused` (refused, and
the reference tools cannot decode it either, or the refusal is by design and agreed).
"""

from facts import TAG_NOISE

SEVERITY = [
    # the harness or the tool itself
    "input-modified", "harness-error", "crash", "timeout",
    # wrong output: data loss, broken or unplayable files handed back
    "output-missing", "output-decode-errors", "output-frame-order", "output-aspect-changed",
    "output-duration-changed", "output-audio-dropped", "output-video-dropped", "output-over-budget",
    "output-extension-mismatch", "output-codec-not-playable", "output-fails-validate",
    "accepted-input-ffmpeg-fails", "thumbnail-missing", "thumbnail-decode-errors", "thumbnail-aspect-changed",
    "output-keeps-input-damage",
    # false refusals
    "corrupt-but-ffmpeg-decodes", "unrecognized-but-ffmpeg-reads", "unsupported-but-ffmpeg-reads",
    "prepare-failed-valid-input", "deep-corrupt-but-ffmpeg-decodes", "validate-corrupt-but-ffmpeg-decodes",
    "corrupt-ffmpeg-plays-through", "corrupt-truncated-ffmpeg-silent", "refused-but-vips-decodes",
    "refused-ffmpeg-guesses", "refused-by-safety-cap", "refused-document-by-design",
    # wrong diagnoses and messages
    "encrypted-called", "wrong-codec-identified", "container-disagrees", "probe-disagrees-decode", "probe-disagrees-ffprobe",
    "message-mismatch", "ak-inconsistent", "output-decoders-disagree", "thumbnail-decoders-disagree",
    # not AttachKit's
    "reference-timeout", "ffprobe-estimate",
]
INFO = {"reference-timeout", "refused-by-safety-cap", "refused-document-by-design", "ffprobe-estimate"}
KEEP_DETAIL = {"prepare-failed-valid-input", "probe-disagrees-ffprobe", "timeout", "output-decode-errors"}

BUDGET = {"image": 10_000_000, "audio": 5_000_000, "video": 50_000_000}  # the ios profile's maxBytes
MAX_DURATION = 30.0  # ios: audio and video

# AttachKit's codec names that ffprobe spells differently.
CODEC_ALIASES = {"jpeg": {"mjpeg", "jpeg"}, "heic": {"hevc"}, "avif": {"av1"}, "jpeg2000": {"jpeg2000"},
                 "mp3": {"mp3", "mp3float"}, "dts": {"dts"}, "wmav2": {"wmav2"}, "mpeg2video": {"mpeg2video"},
                 "mpeg4": {"mpeg4"}, "tiff": {"tiff"}, "webp": {"webp"}, "bmp": {"bmp"}}

# AttachKit's container names and the ffprobe format_name tokens that mean the same thing.
CONTAINERS = {
    "mp4": {"mov", "mp4"}, "m4a": {"mov", "mp4", "m4a"}, "m4v": {"mov", "mp4"}, "mov": {"mov"},
    "3gp": {"mov", "3gp", "3g2"}, "heic": {"mov"}, "heif": {"mov"}, "avif": {"mov"}, "heif-sequence": {"mov"},
    "mkv": {"matroska"}, "webm": {"webm", "matroska"}, "matroska": {"matroska"},
    "mpeg-ts": {"mpegts"}, "ts": {"mpegts"}, "mpeg-ps": {"mpeg"}, "mpeg": {"mpeg"},
    "aac-adts": {"aac"}, "aiff": {"aiff"}, "aifc": {"aiff"}, "wav": {"wav"}, "rf64": {"wav"}, "wave64": {"w64"},
    "ogg": {"ogg"}, "flac": {"flac"}, "mp3": {"mp3"}, "jpeg": {"jpeg_pipe", "image2"}, "png": {"png_pipe", "apng", "image2"},
    "gif": {"gif", "gif_pipe"}, "webp": {"webp_pipe"}, "tiff": {"tiff_pipe"}, "bmp": {"bmp_pipe"},
    "asf": {"asf"}, "flv": {"flv"}, "avi": {"avi"}, "caf": {"caf"}, "amr": {"amr", "amrnb", "amrwb"},
    "ape": {"ape"}, "ac3": {"ac3"}, "eac3": {"eac3"}, "dts": {"dts"}, "mp2": {"mp3"}, "wavpack": {"wv"},
    "tta": {"tta"}, "dsf": {"dsf"}, "dff": {"iff"}, "musepack": {"mpc", "mpc8"}, "au": {"au"},
    "voc": {"voc"}, "realmedia": {"rm"}, "mxf": {"mxf"}, "ivf": {"ivf"}, "jxl": {"jpegxl_pipe"},
    "jpeg2000": {"j2k_pipe", "jpeg2000"}, "pnm": {"pgm_pipe", "ppm_pipe", "pbm_pipe", "pam_pipe", "pgmyuv_pipe"},
    "qoi": {"qoi_pipe"}, "psd": {"psd_pipe"}, "ico": {"ico"}, "dds": {"dds_pipe"}, "exr": {"exr_pipe"},
    "sun-raster": {"sunrast_pipe"}, "pcx": {"pcx_pipe"}, "sgi": {"sgi_pipe"}, "xwd": {"xwd_pipe"},
    "dpx": {"dpx_pipe"}, "h264": {"h264"}, "hevc": {"hevc"},
}

# README "What plays": what an output may contain, by its extension.
PLAYABLE_VIDEO = {"h264": {"Constrained Baseline", "Baseline", "Main", "High"}, "hevc": {"Main", "Main 10"}}
PLAYABLE_PIXFMT = {"yuv420p", "yuvj420p", "yuv420p10le", "nv12"}
PLAYABLE_MP4_AUDIO = {"aac", "alac", "mp3", "ac3", "eac3"}
PLAYABLE_AAC = {"LC", "HE-AAC", "HE-AACv2", "LD", "ELD"}
EXTENSIONS = {"jpg": "jpeg", "jpeg": "jpeg", "png": "png", "gif": "gif", "heic": "heif", "heif": "heif",
              "mp4": "mp4", "m4v": "mp4", "mov": "mp4", "m4a": "mp4", "mp3": "mp3", "wav": "wav",
              "aif": "aiff", "aiff": "aiff", "aifc": "aiff"}


def sniff(magic_hex):
    """What an output's first bytes are, in EXTENSIONS' families."""
    b = bytes.fromhex(magic_hex or "")
    if b.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if b.startswith(b"\x89PNG"):
        return "png"
    if b.startswith(b"GIF8"):
        return "gif"
    if b[4:8] == b"ftyp":
        return "heif" if b[8:12] in (b"heic", b"heix", b"mif1", b"msf1", b"hevc") else "mp4"
    if b.startswith(b"RIFF") and b[8:12] == b"WAVE":
        return "wav"
    if b.startswith(b"FORM") and b[8:12] in (b"AIFF", b"AIFC"):
        return "aiff"
    if b.startswith(b"ID3") or (len(b) > 1 and b[0] == 0xFF and b[1] & 0xE0 == 0xE0):
        return "mp3"
    return "unknown"


def verdict(decode):
    """The decode's verdict, with messages about tags only (facts.TAG_NOISE) not counted as damage."""
    v = (decode or {}).get("verdict")
    messages = (decode or {}).get("messages") or []
    if v == "warnings" and (decode.get("damageCount") == 0 or all(TAG_NOISE.search(m) for m in messages)):
        return "clean"
    return v


def base(tag):
    return tag.split("(")[0]


def rank(tag):
    name = base(tag)
    return SEVERITY.index(name) if name in SEVERITY else len(SEVERITY)


def outcome(tags):
    real = [t for t in tags if base(t) not in INFO and not t.startswith("agree")]
    if real:
        worst = min(real, key=lambda t: (rank(t), t))
        return worst if base(worst) in KEEP_DETAIL else base(worst)
    return next((t for t in tags if t.startswith("agree")), "agree-ok")


def av_streams(probe, kind=None, attached=False):
    streams = (probe or {}).get("streams", [])
    return [s for s in streams if s.get("type") in ((kind,) if kind else ("audio", "video"))
            and (attached or not s.get("attachedPic"))]


def reference(r):
    """What the reference tools say about the input: decodes, warns, fails, not-media, empty or timeout."""
    return reference_by(r)[0]


def reference_by(r):
    """(verdict, which tool): ffmpeg first; libvips (its loader named: the vips CLI also has the
    ImageMagick loader AttachKit blocks) when ffmpeg cannot decode the picture cleanly."""
    src = r.get("source", {})
    decode = verdict(src.get("ffdecode"))
    media = bool(av_streams(src.get("ffprobe"), attached=True))
    vips = src.get("vips") or {}
    vips_ok = vips.get("rc") == 0 and vips.get("width")
    if decode == "timeout":
        return "timeout", "ffmpeg"
    if media and decode == "clean" and media_frames(src):
        return "decodes", "ffmpeg"
    if vips_ok and vips.get("decode") == "clean":
        return "decodes", f"vips {vips.get('loader')}"
    if media and decode == "warnings":
        return "warns", "ffmpeg"
    if not media and not vips_ok:
        return "not-media", "ffmpeg"
    if decode == "empty" or (media and decode == "clean"):  # nothing decoded but attached pictures
        return "empty", "ffmpeg"
    return "fails", "ffmpeg"


def media_frames(src):
    """Frames ffmpeg decoded from streams that are not attached pictures. framecrc numbers its
    streams in the order they were mapped: every video stream (-map 0:v?), then every audio one."""
    streams = (src.get("ffprobe") or {}).get("streams", [])
    mapped = [s for s in streams if s.get("type") == "video"] + [s for s in streams if s.get("type") == "audio"]
    frames = (src.get("ffdecode") or {}).get("frames") or {}
    return sum(frames.get(str(i), 0) for i, s in enumerate(mapped) if not s.get("attachedPic"))


def tags(r):
    if "harnessError" in r:
        return ["harness-error"]
    found = []
    if r.get("inputModified"):
        found.append("input-modified")
    found += crash_tags(r)
    found += output_tags(r)
    found += refusal_tags(r)
    found += probe_tags(r)
    found += message_tags(r)
    if reference(r) == "timeout":
        found.append("reference-timeout")
    if not [t for t in found if base(t) not in INFO]:
        prepared = (r["ak"].get("prepare") or {}).get("json") or {}
        found.append("agree-ok" if prepared.get("ok") else "agree-refused")
    return sorted(set(found), key=lambda t: (rank(t), t))


def crash_tags(r):
    found = []
    for verb, result in r.get("ak", {}).items():
        rc = result.get("rc")
        if rc is None:
            found.append(f"timeout({verb})")
        elif rc < 0:
            found.append(f"crash({verb}:signal {-rc})")
        elif rc not in (0, 1):
            found.append(f"crash({verb}:exit {rc})")
        elif result.get("json") is None:
            found.append(f"crash({verb}:no JSON)")
    for o in r.get("outputs", []):
        rc = o.get("deep", {}).get("rc")
        if rc is None or rc < 0 or rc not in (0, 1):
            found.append(f"crash(validate of output:{rc})")
    return found


def display_aspect(probe, vips=None):
    """Upright width/height ratio: width x SAR / height, swapped for 90/270 rotation or EXIF 5-8."""
    if vips and vips.get("rc") == 0 and vips.get("width") and vips.get("height"):
        w, h = vips["width"], vips.get("pageHeight") or vips["height"]
        return (h / w if (vips.get("orientation") or 1) >= 5 else w / h), min(w, h)
    videos = av_streams(probe, "video") or av_streams(probe, "video", attached=True)
    for s in videos:
        if s.get("width") and s.get("height"):
            a = s["width"] * (s.get("sar") or 1.0) / s["height"]
            return (1 / a if s.get("rotation") in (90, 270) else a), min(s["width"], s["height"])
    return None, None


def playability(o):
    """What in an output does not play, per README "What plays"."""
    ext = o["path"].rsplit(".", 1)[-1].lower()
    problems = []
    for s in av_streams(o.get("ffprobe")):
        codec = s.get("codec")
        if ext in ("mp4", "m4v", "mov") and s["type"] == "video":
            if codec not in PLAYABLE_VIDEO:
                problems.append(f"video {codec}")
            elif s.get("profile") not in PLAYABLE_VIDEO[codec] or s.get("pixFmt") not in PLAYABLE_PIXFMT:
                problems.append(f"{codec} {s.get('profile')} {s.get('pixFmt')}")
            elif codec == "hevc" and s.get("tag") != "hvc1":
                problems.append(f"hevc tagged {s.get('tag')}")
        elif ext in ("mp4", "m4v", "mov", "m4a") and s["type"] == "audio":
            if codec not in PLAYABLE_MP4_AUDIO or (codec == "aac" and s.get("profile") not in PLAYABLE_AAC):
                problems.append(f"audio {codec} {s.get('profile', '')}".strip())
        elif ext == "m4a" and s["type"] == "video":
            problems.append("video in .m4a")
        elif ext == "mp3" and codec != "mp3":
            problems.append(f"{codec} in .mp3")
        elif ext in ("wav", "aif", "aiff") and not (codec or "").startswith("pcm_"):
            problems.append(f"{codec} in .{ext}")
        elif ext in ("jpg", "jpeg") and (codec != "mjpeg" or (s.get("bitsPerRaw") not in (None, "8"))):
            problems.append(f"jpeg {codec} {s.get('bitsPerRaw')}-bit")
    return problems


def output_tags(r):
    found = []
    prepared = (r["ak"].get("prepare") or {}).get("json") or {}
    src = r.get("source", {})
    src_aspect, _ = display_aspect(src.get("ffprobe"), src.get("vips"))
    for o in r.get("outputs", []):
        prefix = "output" if o["role"] == "output" else "thumbnail"
        if o.get("missing"):
            found.append(f"{prefix}-missing")
            continue
        decoded = verdict(o["ffdecode"])
        vips = (o.get("vips") or {}).get("decode") if sniff(o["magic"]) in ("jpeg", "png", "gif", "heif") else None
        same_bytes = prefix == "output" and o.get("sha256") == r.get("sha256") or \
            (prepared.get("action") == "passthrough" and prefix == "output")
        if decoded != "clean" and vips != "clean" and same_bytes and decoded == verdict(src.get("ffdecode")):
            found.append(f"output-keeps-input-damage({decoded})")
        elif decoded != "clean" and vips != "clean":
            found.append(f"{prefix}-decode-errors({decoded})")
        elif decoded != "clean" and sniff(o["magic"]) != "heif":  # FFmpeg 5.1 reads no HEIF still
            found.append(f"{prefix}-decoders-disagree(ffmpeg {decoded}, vips clean)")
        elif vips not in (None, "clean"):
            found.append(f"{prefix}-decoders-disagree(ffmpeg clean, vips {vips})")
        out_aspect, short = display_aspect(o.get("ffprobe"), o.get("vips"))
        if src_aspect and out_aspect and abs(out_aspect / src_aspect - 1) > 0.02 + 2.0 / max(short, 1):
            found.append(f"{prefix}-aspect-changed({src_aspect:.3f}->{out_aspect:.3f})")
        if prefix == "thumbnail":
            continue
        found += output_file_tags(r, o, prepared)
    return found


def output_file_tags(r, o, prepared):
    found = []
    src = r["source"]
    deep = o["deep"].get("json") or {}
    hard = [d["code"] for d in deep.get("diagnostics", []) if d.get("severity") != "warning"]
    if not deep.get("ok", False) and hard:
        found.append(f"output-fails-validate({','.join(sorted(set(hard)))})")
    kind = (prepared.get("after") or {}).get("kind")
    if kind in BUDGET and o["bytes"] > BUDGET[kind]:
        found.append(f"output-over-budget({kind})")
    ext = o["path"].rsplit(".", 1)[-1].lower()
    family = sniff(o["magic"])
    if family == "unknown" and (o["ffprobe"].get("format") or "") in ("mp3", "wav", "aiff"):
        family = o["ffprobe"]["format"]  # an MP3 after padding: ffprobe finds the frames
    if EXTENSIONS.get(ext) != family:
        found.append(f"output-extension-mismatch(.{ext} holds {family})")
    order = o.get("order") or {}
    if order.get("backwards") and not (src.get("order") or {}).get("backwards"):
        found.append("output-frame-order")
    found += duration_tags(src, o, prepared)
    found += [f"output-codec-not-playable({p})" for p in playability(o)]
    src_audio = av_streams(src.get("ffprobe"), "audio")
    out_video = av_streams(o.get("ffprobe"), "video")
    if src_audio and out_video and not av_streams(o.get("ffprobe"), "audio"):
        found.append("output-audio-dropped")
    moving = [s for s in av_streams(src.get("ffprobe"), "video") if (s.get("duration") or 0) > 0.5
              or str(s.get("frames", "1")) not in ("0", "1")]
    if moving and not out_video and kind != "image":
        found.append("output-video-dropped")
    if reference(r) in ("fails", "not-media"):
        found.append("accepted-input-ffmpeg-fails")
    return found


def duration_tags(src, o, prepared):
    if prepared.get("after", {}).get("kind") not in ("audio", "video"):
        return []
    out = o["ffprobe"].get("duration")
    if out is None:
        return []
    sources = [src["ffprobe"].get("duration"), decoded_seconds(src)]
    expected = [prepared["trimDuration"]] if prepared.get("trimDuration") else \
        [min(d, MAX_DURATION) for d in sources if d]
    if not expected or any(abs(out - e) <= max(0.25, 0.05 * e) for e in expected):
        return []
    return [f"output-duration-changed({'shorter' if out < min(expected) else 'longer'})"]


def decoded_seconds(src):
    """The longest span ffmpeg decoded from any stream (None when it decoded nothing)."""
    return max((src.get("ffdecode") or {}).get("seconds", {}).values(), default=None)


def error_of(r, verb):
    j = (r["ak"].get(verb) or {}).get("json") or {}
    return j.get("error") or {}


def refusal_tags(r):
    found = []
    ref = reference(r)
    prepared = (r["ak"].get("prepare") or {}).get("json") or {}
    code = (prepared.get("error") or {}).get("code")
    drm = r["source"].get("drmBoxes")
    iso = bytes.fromhex(r["source"].get("magic", ""))[4:8] in (b"ftyp", b"moov", b"moof", b"styp", b"sidx", b"free")
    if drm and iso and code and code != "encrypted" and {"senc", "pssh", "tenc"} & set(drm):
        found.append(f"encrypted-called({code})")
    by = reference_by(r)[1]
    if not prepared.get("ok") and code and ref in ("decodes", "warns"):
        declared, decoded = r["source"]["ffprobe"].get("duration"), decoded_seconds(r["source"])
        short = code == "corrupt" and declared and decoded is not None and decoded < 0.8 * declared - 0.2
        score = r["source"]["ffprobe"].get("probeScore") or 100
        if code in ("unrecognized-type", "unsupported") and score <= 50 and by == "ffmpeg":
            found.append(f"refused-ffmpeg-guesses({r['source']['ffprobe'].get('format')}, score {score})")
        else:
            found += ["corrupt-truncated-ffmpeg-silent"] if short else refused_decodable(code, ref, by)
    for verb, name in (("deep", "deep-corrupt-but-ffmpeg-decodes"), ("validate", "validate-corrupt-but-ffmpeg-decodes")):
        codes = {d["code"] for d in ((r["ak"].get(verb) or {}).get("json") or {}).get("diagnostics", [])}
        if "corrupt" in codes and ref == "decodes" and by == "ffmpeg" and code != "corrupt":
            found.append(name)
    deep = (r["ak"].get("deep") or {}).get("json") or {}
    if deep.get("ok") and code:
        found.append(f"ak-inconsistent(deep ok, prepare {code})")
    deep_codes = {d["code"] for d in ((r["ak"].get("deep") or {}).get("json") or {}).get("diagnostics", [])}
    if "corrupt" in deep_codes and prepared.get("ok"):
        found.append("ak-inconsistent(deep corrupt, prepare ok)")
    return found


def refused_decodable(code, ref, by="ffmpeg"):
    if code == "over-cap" and by != "ffmpeg":
        return ["refused-by-safety-cap"]  # a cap on purpose that ffmpeg's own limits also refuse
    if by in ("vips pdfload", "vips svgload"):
        return ["refused-document-by-design"]  # documents are not media here (README, "not media")
    if by != "ffmpeg":  # only libvips decodes it (often through ImageMagick, which AttachKit blocks)
        return [f"refused-but-vips-decodes({code}, {by})"]
    if code == "corrupt":
        return ["corrupt-but-ffmpeg-decodes" if ref == "decodes" else "corrupt-ffmpeg-plays-through"]
    if code == "unrecognized-type":
        return ["unrecognized-but-ffmpeg-reads"]  # (weak guesses are split off in refusal_tags)
    if code == "unsupported":
        return ["unsupported-but-ffmpeg-reads"]
    if code in ("empty", "encrypted"):
        return []
    return [f"prepare-failed-valid-input({code})"]


def norm_codec(name):
    return CODEC_ALIASES.get(name, {name})


def probe_tags(r):
    probe = (r["ak"].get("probe") or {}).get("json") or {}
    ff = r["source"]["ffprobe"]
    if probe.get("error") or not av_streams(ff, attached=True):
        return []
    found = []
    kind = probe.get("kind")
    if kind in ("audio", "video"):
        found += codec_tags(probe, ff)
        found += field_tags(probe, ff, r["source"].get("ffdecode"), error_of(r, "prepare").get("code") == "corrupt")
    elif kind == "image":
        found += image_tags(probe, r["source"].get("vips") or {})
    container = probe.get("container")
    tokens = set((ff.get("format") or "").split(","))
    if kind == "image" and "image2" in tokens:
        return found  # ffprobe read the picture by its file name ("image2"): nothing to compare
    if container in CONTAINERS and not CONTAINERS[container] & tokens:
        found.append(f"container-disagrees({container} vs {ff.get('format')})")
    return found


def codec_tags(probe, ff):
    found = []
    kind = probe["kind"]
    pairs = [(probe.get("codec"), kind)] + ([(probe.get("audioCodec"), "audio")] if probe.get("audioCodec") else [])
    for codec, stream_kind in pairs:
        names = {s.get("codec") for s in av_streams(ff, stream_kind)} - {None}
        if codec and names and not norm_codec(codec) & names:
            found.append(f"wrong-codec-identified({codec} vs {'/'.join(sorted(n or '?' for n in names))})")
    if kind == "video" and not av_streams(ff, "video"):
        found.append("probe-disagrees-ffprobe(kind video, no video stream)")
    if kind == "audio" and [s for s in av_streams(ff, "video") if str(s.get("frames", "")) not in ("", "0", "1")]:
        found.append("probe-disagrees-ffprobe(kind audio, has video)")
    return found


def field_tags(probe, ff, r_decode=None, refused_as_corrupt=False):
    found = []
    kind = probe["kind"]
    main = next((s for s in av_streams(ff, kind) if probe.get("codec") in norm_codec(s.get("codec"))
                 or s.get("codec") in norm_codec(probe.get("codec"))), None)
    audio = next((s for s in av_streams(ff, "audio")), None)
    if kind == "video" and main:
        if (probe.get("width"), probe.get("height")) != (main.get("width"), main.get("height")):
            found.append("probe-disagrees-ffprobe(size)")
        if (probe.get("rotation") or 0) != main.get("rotation", 0):
            found.append("probe-disagrees-ffprobe(rotation)")
    a, b = probe.get("duration"), ff.get("duration")
    decoded = max(((r_decode or {}).get("seconds") or {}).values(), default=None)
    # ffprobe estimates an MP3's length from its first frame's bitrate: where AttachKit's is the
    # length a full decode finds, it is ffprobe that is off, not AttachKit.
    matches_decode = a is not None and decoded is not None and abs(a - decoded) <= max(0.1, 0.01 * decoded)
    if a is not None and b is not None and abs(a - b) > max(0.5, 0.05 * b):
        found.append("ffprobe-estimate(duration)" if matches_decode else "probe-disagrees-ffprobe(duration)")
    if (a is None) != (b is None):
        found.append(f"probe-disagrees-ffprobe(duration {'missing' if a is None else 'extra'})")
    if a and decoded and not refused_as_corrupt and verdict(r_decode) == "clean" and abs(a - decoded) > max(1.0, 0.1 * decoded):
        found.append(f"probe-disagrees-decode(duration {a:g} s, decoded {decoded:g} s)")
    if audio and probe.get("sampleRate") and audio.get("sampleRate") and probe["sampleRate"] != audio["sampleRate"]:
        found.append("probe-disagrees-ffprobe(sampleRate)")
    if audio and probe.get("channels") and audio.get("channels") and probe["channels"] != audio["channels"]:
        found.append("probe-disagrees-ffprobe(channels)")
    return found


def image_tags(probe, vips):
    if vips.get("rc") != 0 or not vips.get("width"):
        return []
    height = vips.get("pageHeight") or vips["height"]
    if (probe.get("width"), probe.get("height")) not in ((vips["width"], height), (vips["width"], vips["height"])):
        return ["probe-disagrees-ffprobe(image size vs vips)"]
    return []


# Names a message may use for a format, and the ffprobe format/codec tokens that make it right.
MESSAGE_NAMES = {"mp3": {"mp3", "mp3float"}, "flac": {"flac"}, "ogg": {"ogg", "vorbis", "opus"},
                 "aiff": {"aiff"}, "wav": {"wav"}, "matroska": {"matroska", "webm"},
                 "mpeg-ts": {"mpegts"}, "adts": {"aac"}, "ac-3": {"ac3", "eac3"}}


def message_tags(r):
    """An error message that names a format the file is not (by ffprobe's reading)."""
    ff = r["source"]["ffprobe"]
    found = []
    head = bytes.fromhex(r["source"].get("magic", ""))
    code = error_of(r, "prepare").get("code")
    if head[4:8] in (b"moof", b"styp", b"sidx", b"emsg", b"prft") and code in ("unrecognized-type", "corrupt"):
        # a DASH/HLS media segment without its init segment: the message should say so
        found.append(f"message-mismatch(MP4 media segment without 'moov' called {code})")
    if ff.get("rc") != 0 or not ff.get("format"):
        return found
    known = set(ff["format"].split(",")) | {s.get("codec") for s in ff.get("streams", [])}
    messages = [error_of(r, "prepare").get("message", "")]
    messages += [d.get("message", "") for d in ((r["ak"].get("deep") or {}).get("json") or {}).get("diagnostics", [])
                 if d.get("code") in ("corrupt", "unsupported-codec", "unrecognized-type")]
    for message in messages:
        words = set(message.lower().replace("(", " ").replace(")", " ").replace(",", " ").replace(":", " ").split())
        for name, tokens in MESSAGE_NAMES.items():
            if name in words and not tokens & known:
                found.append(f"message-mismatch(says {name}, ffprobe {ff['format']})")
    return found
