#!/usr/bin/env python3
"""Differential harness: AttachKit against ffprobe, a full ffmpeg decode and vipsheader.

For every file of the folders given (default: ../shared/peers and ../shared/corpus beside the
checkout, each skipped with a message when absent) it runs

  attachkit probe --json F
  attachkit validate --profile ios --json F
  attachkit validate --profile ios --deep --json F
  attachkit prepare --profile ios --json --thumbnail --out TMP F
  ffprobe -show_streams -show_format -of json F
  ffmpeg -v error -i F -map 0:v? -map 0:a? -f framecrc -   (a full decode: clean, warnings, failed
                                                          or empty; frames and seconds per stream)
  vipsheader -a F, vips avg F[fail_on=warning]            (pictures, and whatever ffprobe cannot read)

and re-checks every prepared output (and thumbnail) with ffprobe, a full ffmpeg decode (and
libvips for pictures), `attachkit validate --deep`, its byte size against the ios budget of its
kind, its extension against its bytes, its display aspect (width x height x SAR, rotation, EXIF
orientation) against the source's, its frame order (decoded pts strictly increasing, ffprobe
-show_frames), its duration against the source's declared and decoded ones (or the trim), and each
stream's codec against README's "What plays" table.

Each file is then classified (scripts/differential/classify.py): `agree-ok`, `agree-refused`, or
the most severe of its findings (`crash`, `timeout`, `output-*`, `corrupt-but-ffmpeg-decodes`,
`prepare-failed-valid-input(code)`, `unsupported-but-ffmpeg-reads`, `wrong-codec-identified`,
`probe-disagrees-ffprobe(field)`, `probe-disagrees-decode`, `message-mismatch`, ...; the list and
its order are classify.SEVERITY). Every finding of a file is kept in its `tags`. Disagreements are
then grouped by the mechanism in AttachKit behind them (scripts/differential/mechanisms.py: one
hand-written predicate per class, so a fix shows as a class emptied). Reference tools are not the
truth: FFmpeg conceals damage and guesses formats from file names (`refused-ffmpeg-guesses`),
libvips' CLI has the ImageMagick loader AttachKit blocks (`refused-but-vips-decodes(..., magickload)`).

Outputs, in --report DIR (default out/differential in the repository, which git ignores):
  results.jsonl   one line per file, every fact gathered (sorted by file when the run ends)
  summary.md      disagreements per mechanism and project, outcome and finding counts per
                  project, up to 5 example files each

--variants also generates scripts/differential/variants.py's files (each built to exercise one
mechanism, from ffmpeg's lavfi sources and byte patches) in a temporary folder and runs them as
project `variants`.

Resumable: a file already in results.jsonl with the same size and modification time is not run
again (--fresh runs them again; with --only, just the matching ones). --only REGEX and --limit N pick files (deterministic: sorted paths).
Inputs are never modified (each is hashed before and after; a change is reported as
`input-modified`); every temporary folder is removed, also on Ctrl-C or SIGTERM.

Usage:
  scripts/differential.py                       # build release attachkit, run over ../shared
  scripts/differential.py --attachkit .build/release/attachkit --only 'mp4ff' --limit 20
  scripts/differential.py ../shared/peers/quodlibet+mutagen --jobs 1
  scripts/differential.py --variants --only '^variants/' --report out/variants   # generated variants only
  scripts/differential.py --summarize           # rewrite summary.md from results.jsonl (classified anew)

Python 3 standard library only. Needs ffprobe, ffmpeg, vipsheader (scripts/setup.sh installs them).
At most 2 files run at a time by default: the machine has 2 cores shared with other work.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
sys.path.insert(0, str(Path(__file__).resolve().parent / "differential"))

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
import classify  # noqa: E402  (scripts/differential/classify.py)
import facts  # noqa: E402     (scripts/differential/facts.py)
import summary  # noqa: E402   (scripts/differential/summary.py)
import variants  # noqa: E402  (scripts/differential/variants.py)


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="Run AttachKit against ffprobe/ffmpeg/vipsheader over folders of media and classify disagreements.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("Usage:")[1])
    p.add_argument("folders", nargs="*", help="folders or files (default: ../shared/peers ../shared/corpus)")
    p.add_argument("--attachkit", help="attachkit binary (default: build the release product and use .build/release/attachkit)")
    p.add_argument("--report", default=str(REPO / "out" / "differential"), help="report folder (default: %(default)s)")
    p.add_argument("--jobs", type=int, default=2, help="files at a time, 1-2 (default 2)")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per command (default 120)")
    p.add_argument("--only", help="only files whose path (relative to its folder's parent) matches this regex")
    p.add_argument("--limit", type=int, help="at most N files (after --only)")
    p.add_argument("--fresh", action="store_true",
                   help="run files again even when results.jsonl has them (with --only: just those)")
    p.add_argument("--variants", action="store_true",
                   help="also generate scripts/differential/variants.py's files in a temporary folder and run them")
    p.add_argument("--summarize", action="store_true", help="only rewrite summary.md from results.jsonl")
    args = p.parse_args(argv)
    if not 1 <= args.jobs <= 2:
        p.error("--jobs must be 1 or 2 (the machine has 2 shared cores)")
    return args


def attachkit_binary(args):
    if args.attachkit:
        return str(Path(args.attachkit).resolve())
    print("building: swift build -c release --product attachkit", file=sys.stderr)
    subprocess.run(["swift", "build", "-c", "release", "--product", "attachkit"], cwd=REPO, check=True)
    return str(REPO / ".build" / "release" / "attachkit")


def input_files(args, extra=()):
    """(label, path) pairs in a stable order; label is the path relative to the folder's parent."""
    folders = ([Path(f) for f in args.folders] or [SHARED / "peers", SHARED / "corpus"]) + list(extra)
    found = []
    for folder in folders:
        if not folder.exists():
            print(f"skipped {folder}: not present", file=sys.stderr)
            continue
        base = folder.resolve().parent
        paths = [folder] if folder.is_file() else sorted(p for p in folder.rglob("*") if p.is_file())
        for path in paths:
            if path.name in ("SOURCES.md", "manifest.tsv") or path.is_symlink():
                continue
            found.append((str(path.resolve().relative_to(base)), path.resolve()))
    if args.only:
        pattern = re.compile(args.only)
        found = [f for f in found if pattern.search(f[0])]
    return found[: args.limit] if args.limit else found


def project_of(label):
    parts = label.split("/")
    return parts[1] if parts[0] == "peers" and len(parts) > 2 else parts[0]


def fingerprint(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    st = path.stat()
    return {"bytes": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": h.hexdigest()}


def examine(label, path, ak, timeout):
    """Every fact about one file and its outputs, then its classification."""
    started = time.monotonic()
    before = fingerprint(path)
    record = {"file": label, "project": project_of(label), "bytes": before["bytes"],
              "mtime_ns": before["mtime_ns"], "sha256": before["sha256"]}
    work = tempfile.mkdtemp(prefix="attachkit-differential-")
    try:
        runner = facts.Runner(timeout)
        record["source"] = facts.source_facts(runner, path)
        record["ak"] = facts.attachkit_facts(runner, ak, path, Path(work) / "out")
        record["outputs"] = facts.output_facts(runner, ak, record["ak"].get("prepare", {}).get("json"))
        if any(o.get("order", {}).get("backwards") for o in record["outputs"]):
            record["source"]["order"] = facts.order_facts(facts.frame_pts(runner, path))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    after = fingerprint(path)
    record["inputModified"] = after["sha256"] != before["sha256"] or after["mtime_ns"] != before["mtime_ns"]
    record["tags"] = classify.tags(record)
    record["outcome"] = classify.outcome(record["tags"])
    record["seconds"] = round(time.monotonic() - started, 2)
    return record


def load_done(results):
    done = {}
    if results.exists():
        for line in results.read_text().splitlines():
            try:
                r = json.loads(line)
                done[r["file"]] = r
            except (ValueError, KeyError):
                continue
    return done


def run(args):
    report = Path(args.report)
    report.mkdir(parents=True, exist_ok=True)
    results = report / "results.jsonl"
    if args.fresh and results.exists():  # with --only, only the matching files are dropped
        keep = [r for r in load_done(results).values() if args.only and not re.search(args.only, r["file"])]
        results.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in keep))
    if args.summarize:
        return finish(results, report)
    ak = attachkit_binary(args)
    with tempfile.TemporaryDirectory(prefix="attachkit-variants-") as scratch:
        extra = []
        if args.variants:
            extra.append(Path(scratch) / "variants")
            variants.generate(extra[0])
        return run_files(args, ak, results, report, input_files(args, extra))


def run_files(args, ak, results, report, files):
    done = load_done(results)
    todo = []
    for label, path in files:
        st = path.stat()
        old = done.get(label)
        if old and old.get("bytes") == st.st_size and old.get("mtime_ns") == st.st_mtime_ns:
            continue
        todo.append((label, path))
    print(f"{len(todo)} files to run ({len(done)} already in {results})", file=sys.stderr)
    lock = threading.Lock()
    started = time.monotonic()
    with open(results, "a") as out, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(examine, label, path, ak, args.timeout): label for label, path in todo}
        try:
            for n, future in enumerate(concurrent.futures.as_completed(futures), 1):
                label = futures[future]
                try:
                    record = future.result()
                except facts.Stopped:
                    continue
                except Exception as error:  # a harness bug must not lose the rest of the run
                    record = {"file": label, "project": project_of(label), "harnessError": repr(error),
                              "tags": ["harness-error"], "outcome": "harness-error"}
                with lock:
                    out.write(json.dumps(record, sort_keys=True) + "\n")
                    out.flush()
                elapsed = time.monotonic() - started
                print(f"[{n}/{len(todo)} {elapsed:.0f}s] {record['outcome']:<34} {label}", file=sys.stderr)
        except KeyboardInterrupt:
            print("interrupted: stopping (finished files are kept)", file=sys.stderr)
            for f in futures:
                f.cancel()
            facts.Runner.stop_all()
            raise
    return finish(results, report)


def finish(results, report):
    records = sorted(load_done(results).values(), key=lambda r: r["file"])
    for r in records:  # classified again, so a change of the rules needs no new run
        r["tags"] = classify.tags(r)
        r["outcome"] = classify.outcome(r["tags"])
    with open(results, "w") as out:
        for r in records:
            out.write(json.dumps(r, sort_keys=True) + "\n")
    (report / "summary.md").write_text(summary.markdown(records))
    print(f"wrote {results} and {report / 'summary.md'} ({len(records)} files)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        os.nice(10)  # leave the cores to the people compiling
    except OSError:
        pass
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        sys.exit(run(parse_args(sys.argv[1:])))
    except KeyboardInterrupt:
        sys.exit(130)
