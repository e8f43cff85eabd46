"""The facts the differential harness gathers: what each tool says about a file and its outputs.

Every command runs with a timeout in its own process group (killed whole on timeout or Ctrl-C);
a result is {"rc", "ms", "stdout"/"json", "stderr"} with rc None on timeout, negative on a signal.
"""

import json
import re
import os
import signal
import subprocess
import threading
import time
from fractions import Fraction
from pathlib import Path

IMAGE_MAGIC = (b"\xff\xd8\xff", b"\x89PNG", b"GIF8", b"II*\x00", b"MM\x00*", b"II+\x00", b"MM\x00+", b"BM",
               b"\x00\x00\x00\x0cjP", b"\xff\x4f\xff\x51", b"\xff\x0a", b"qoif", b"8BPS")


# ffmpeg messages about tags and metadata, not about the media: they do not make a decode unclean.
TAG_NOISE = re.compile(r"BOM value|ID3v2|id3v2|APE tag|Error reading frame|EXIF|Discarding ID3|Invalid chapter|metadata|Estimating duration")


class Stopped(Exception):
    """The run was interrupted: no new command starts (the caller's temporary folders are removed)."""


class Runner:
    """Runs commands with one timeout; remembers the live ones so Ctrl-C can end them."""
    live = set()
    lock = threading.Lock()
    stopping = threading.Event()

    def __init__(self, timeout):
        self.timeout = timeout

    def run(self, argv, text_limit=4000, timeout=None):
        started = time.monotonic()
        with Runner.lock:
            if Runner.stopping.is_set():
                raise Stopped()
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
            Runner.live.add(proc)
        try:
            out, err = proc.communicate(timeout=timeout or self.timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            rc = None
        finally:
            with Runner.lock:
                Runner.live.discard(proc)
        return {"rc": rc, "ms": int((time.monotonic() - started) * 1000),
                "stdout": out.decode("utf-8", "replace"), "stderr": err.decode("utf-8", "replace")[:text_limit]}

    @classmethod
    def stop_all(cls):
        """Ends every live command (its whole process group) and lets no new one start."""
        with cls.lock:
            cls.stopping.set()
            for proc in list(cls.live):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def first_json(text):
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                continue
    return None


def rotation_of(stream):
    """Degrees clockwise, as AttachKit reports it (ffprobe's display matrix is counter-clockwise)."""
    for side in stream.get("side_data_list", []) or []:
        if "rotation" in side:
            return int(round(-float(side["rotation"]))) % 360
    rotate = (stream.get("tags") or {}).get("rotate")
    return int(rotate) % 360 if rotate and rotate.lstrip("-").isdigit() else 0


def ratio(text):
    if not text or ":" not in text:
        return None
    n, d = text.split(":")[:2]
    try:
        return float(n) / float(d) if float(d) and float(n) else None
    except ValueError:
        return None


def num(value):
    try:
        v = float(value)
        return v if v == v else None
    except (TypeError, ValueError):
        return None


def stream_summary(s):
    disposition = s.get("disposition") or {}
    return {k: v for k, v in {
        "index": s.get("index"), "type": s.get("codec_type"), "codec": s.get("codec_name"),
        "tag": s.get("codec_tag_string"), "profile": s.get("profile"), "width": s.get("width"),
        "height": s.get("height"), "sar": ratio(s.get("sample_aspect_ratio")), "rotation": rotation_of(s),
        "pixFmt": s.get("pix_fmt"), "sampleRate": num(s.get("sample_rate")), "channels": s.get("channels"),
        "bitsPerRaw": s.get("bits_per_raw_sample"), "duration": num(s.get("duration")), "start": num(s.get("start_time")),
        "frames": s.get("nb_frames"), "attachedPic": bool(disposition.get("attached_pic")),
        "fieldOrder": s.get("field_order"), "colorTransfer": s.get("color_transfer"),
    }.items() if v not in (None, "", "unknown")}


def ffprobe(runner, path):
    r = runner.run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", str(path)])
    info = {"rc": r["rc"], "ms": r["ms"], "stderr": r["stderr"][:600]}
    try:
        data = json.loads(r["stdout"]) if r["stdout"].strip() else {}
    except ValueError:
        data = {}
    fmt = data.get("format") or {}
    info.update({"format": fmt.get("format_name"), "duration": num(fmt.get("duration")), "start": num(fmt.get("start_time")),
                 "bitRate": num(fmt.get("bit_rate")), "probeScore": fmt.get("probe_score"),
                 "streams": [stream_summary(s) for s in data.get("streams", [])]})
    return info


def ffdecode(runner, path):
    """A full decode of every audio and video stream: clean, warnings (exit 0 with messages),
    failed, or empty (exit 0, no frame at all). From `framecrc`: the frames decoded per stream
    and the seconds they span (first pts to last pts + duration, in the stream's time base)."""
    r = runner.run(["ffmpeg", "-nostdin", "-hide_banner", "-v", "error", "-i", str(path),
                    "-map", "0:v?", "-map", "0:a?", "-f", "framecrc", "-"])
    lines = [l for l in r["stderr"].splitlines() if l.strip()]
    damage = [l for l in lines if not TAG_NOISE.search(l)]
    frames, spans, bases = {}, {}, {}
    for line in r["stdout"].splitlines():
        if line.startswith("#tb "):
            stream, _, tb = line[4:].partition(":")
            n, _, d = tb.strip().partition("/")
            bases[stream.strip()] = Fraction(int(n), int(d or 1))
        elif line and line[0].isdigit():
            fields = [f.strip() for f in line.split(",")]
            stream, pts, duration = fields[0], int(fields[2]), int(fields[3])
            frames[stream] = frames.get(stream, 0) + 1
            low, high = spans.get(stream, (pts, pts + duration))
            spans[stream] = (min(low, pts), max(high, pts + duration))
    seconds = {k: round(float((hi - lo) * bases.get(k, 1)), 3) for k, (lo, hi) in spans.items()}
    verdict = "timeout" if r["rc"] is None else "failed" if r["rc"] != 0 else \
        "empty" if not frames else "warnings" if damage else "clean"
    return {"verdict": verdict, "rc": r["rc"], "ms": r["ms"], "messages": lines[:6],
            "messageCount": len(lines), "damageCount": len(damage), "frames": frames, "seconds": seconds}


def vipsheader(runner, path):
    r = runner.run(["vipsheader", "-a", str(path)], timeout=30)
    fields = {}
    for line in r["stdout"].splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields[key.strip()] = value.strip()
    return {"rc": r["rc"], "width": num(fields.get("width")), "height": num(fields.get("height")),
            "orientation": int(fields["orientation"]) if fields.get("orientation", "").isdigit() else None,
            "bands": num(fields.get("bands")), "pageHeight": num(fields.get("page-height")),
            "pages": num(fields.get("n-pages")), "loader": fields.get("vips-loader"),
            "error": r["stderr"].strip()[:300] if r["rc"] else None}


def vips_decode(runner, path):
    """A full libvips decode that fails on warnings: clean or failed."""
    r = runner.run(["vips", "avg", f"{path}[fail_on=warning]"], timeout=60)
    return "clean" if r["rc"] == 0 else "timeout" if r["rc"] is None else "failed"


def looks_like_image(path):
    with open(path, "rb") as f:
        head = f.read(16)
    return head.startswith(IMAGE_MAGIC) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP") or head[4:12] in (b"ftypheic", b"ftypmif1", b"ftypavif", b"ftypheix")


def frame_pts(runner, path):
    """Decoded video frame pts in output order (the first video stream), and the decoder's messages."""
    r = runner.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                    "frame=pts_time,best_effort_timestamp_time", "-of", "csv=p=0", str(path)], text_limit=2000)
    pts = []
    for line in r["stdout"].splitlines():
        values = [num(v) for v in line.split(",")]
        chosen = values[0] if values and values[0] is not None else (values[1] if len(values) > 1 else None)
        if chosen is not None:
            pts.append(chosen)
    return pts


def order_facts(pts):
    backwards = sum(1 for a, b in zip(pts, pts[1:]) if b <= a)
    return {"frames": len(pts), "backwards": backwards, "firstPts": pts[:8]}


def source_facts(runner, path):
    src = {"ffprobe": ffprobe(runner, path), "ffdecode": ffdecode(runner, path)}
    fmt = src["ffprobe"].get("format") or ""
    if looks_like_image(path) or "_pipe" in fmt or fmt in ("image2", "") or not src["ffprobe"]["streams"]:
        src["vips"] = vipsheader(runner, path)
        src["vips"]["decode"] = vips_decode(runner, path)
    with open(path, "rb") as f:
        head = f.read(1 << 20)
    src["magic"] = head[:16].hex()
    with open(path, "rb") as f:
        f.seek(max(0, path.stat().st_size - 4096))
        tail = f.read()
    src["trailerTags"] = [name for name, found in (("APEv2", b"APETAGEX" in tail[-600:]), ("ID3v1", tail[-128:-125] == b"TAG"),
                                                   ("Lyrics3", b"LYRICS200" in tail[-600:])) if found]
    src["drmBoxes"] = sorted({b.decode() for b in (b"senc", b"pssh", b"encv", b"enca", b"sinf", b"tenc") if b in head})
    return src


def ak_run(runner, ak, argv):
    r = runner.run([ak] + argv, text_limit=2000)
    return {"rc": r["rc"], "ms": r["ms"], "json": first_json(r["stdout"]), "stderr": r["stderr"][:600]}


def attachkit_facts(runner, ak, path, out):
    p = str(path)
    return {
        "probe": ak_run(runner, ak, ["probe", "--json", p]),
        "validate": ak_run(runner, ak, ["validate", "--profile", "ios", "--json", p]),
        "deep": ak_run(runner, ak, ["validate", "--profile", "ios", "--deep", "--json", p]),
        "prepare": ak_run(runner, ak, ["prepare", "--profile", "ios", "--json", "--thumbnail", "--out", str(out), p]),
    }


def output_paths(prepared):
    if not prepared or not prepared.get("ok"):
        return []
    paths = []
    if prepared.get("output"):
        paths.append(("output", prepared["output"]))
    thumb = prepared.get("thumbnail")
    thumb_path = thumb.get("path") or thumb.get("output") if isinstance(thumb, dict) else thumb
    if isinstance(thumb_path, str):
        paths.append(("thumbnail", thumb_path))
    return paths


def output_facts(runner, ak, prepared):
    results = []
    for role, name in output_paths(prepared):
        path = Path(name)
        if not path.exists():
            results.append({"role": role, "path": path.name, "missing": True})
            continue
        with open(path, "rb") as f:
            head = f.read(64)
        o = {"role": role, "path": path.name, "bytes": path.stat().st_size, "magic": head[:16].hex(),
             "ffprobe": ffprobe(runner, path), "ffdecode": ffdecode(runner, path),
             "deep": ak_run(runner, ak, ["validate", "--profile", "ios", "--deep", "--json", str(path)])}
        if looks_like_image(path):
            o["vips"] = vipsheader(runner, path)
            o["vips"]["decode"] = vips_decode(runner, path)
        if any(s.get("type") == "video" and not s.get("attachedPic") for s in o["ffprobe"]["streams"]) \
                and (o["ffprobe"]["duration"] or 0) > 0.2:
            o["order"] = order_facts(frame_pts(runner, path))
        results.append(o)
    return results
