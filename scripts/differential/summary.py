"""The Markdown summary of a differential run: outcomes per project, findings, examples."""

from collections import Counter, defaultdict

from classify import base, rank
import mechanisms

EXAMPLES = 5


def markdown(records):
    projects = sorted({r["project"] for r in records})
    outcomes = sorted({r["outcome"] for r in records}, key=lambda o: (rank(o), o))
    lines = ["# Differential run: AttachKit against ffprobe / ffmpeg / vipsheader", "",
             f"{len(records)} files; {sum(r.get('seconds', 0) for r in records):.0f} s of work "
             "(summed over files, two at a time).", ""]
    lines += mechanism_section(records, projects)
    lines += ["", "## Outcomes per project (each file counted once, by its most severe finding)", ""]
    lines += table(records, projects, outcomes, lambda r: [r["outcome"]])
    tag_names = sorted({base(t) for r in records for t in r["tags"]}, key=lambda t: (rank(t), t))
    lines += ["", "## Findings per project (a file counts under every finding it has)", ""]
    lines += table(records, projects, tag_names, lambda r: {base(t) for t in r["tags"]}, "finding")
    lines += ["", "## Examples per finding (with detail)", ""]
    lines += examples(records)
    return "\n".join(lines) + "\n"


def mechanism_section(records, projects):
    """Disagreements grouped by mechanism (scripts/differential/mechanisms.py), worst group first."""
    found = {}
    for r in records:
        name = mechanisms.mechanism(r)
        if name:
            found.setdefault(name, []).append(r)
    order = [(g, n, text) for n, g, text, _ in mechanisms.RULES] + [(len(mechanisms.GROUPS), "unclassified", "no rule matched")]
    out = ["## Disagreements by mechanism (each file under the first rule of mechanisms.py that matches)", ""]
    out += table(records, projects, [n for _, n, _ in order if n in found], lambda r: [mechanisms.mechanism(r)], "mechanism")[:-1]
    out.append("")
    for group, name, text in order:
        if name not in found:
            continue
        files = found[name]
        label = mechanisms.GROUPS.get(group, "unclassified")
        out.append(f"- **`{name}`** ({label}, {len(files)}): {text}")
        if name == "format-not-read":
            kinds = Counter(mechanisms.breadth_detail(r) for r in files)
            out.append("  - by format: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
        for r in pick(files):
            out.append(f"  - `{r['file']}`{detail(r)}")
    return out


def table(records, projects, rows, keys_of, heading="outcome"):
    counts = defaultdict(Counter)
    for r in records:
        for key in keys_of(r):
            counts[key][r["project"]] += 1
    out = [f"| {heading} | total | " + " | ".join(projects) + " |", "|---|---:|" + "---:|" * len(projects)]
    for row in rows:
        c = counts[row]
        out.append(f"| `{row}` | {sum(c.values())} | " + " | ".join(str(c[p] or "") for p in projects) + " |")
    totals = Counter(r["project"] for r in records)
    out.append(f"| **files** | {len(records)} | " + " | ".join(str(totals[p]) for p in projects) + " |")
    return out


def examples(records):
    by_tag = defaultdict(list)
    for r in records:
        for t in r["tags"]:
            if not t.startswith("agree"):
                by_tag[t].append(r)
    out = []
    for tag in sorted(by_tag, key=lambda t: (rank(t), t)):
        files = by_tag[tag]
        per_project = Counter(r["project"] for r in files)
        out.append(f"- `{tag}` ({len(files)}: " + ", ".join(f"{p} {n}" for p, n in sorted(per_project.items())) + ")")
        for r in pick(files):
            out.append(f"  - `{r['file']}`{detail(r)}")
    return out


def pick(files):
    """Up to EXAMPLES files, spread over projects first."""
    chosen, seen = [], set()
    for r in files:
        if r["project"] not in seen:
            chosen.append(r)
            seen.add(r["project"])
    chosen += [r for r in files if r not in chosen]
    return chosen[:EXAMPLES]


def detail(r):
    prepared = ((r.get("ak") or {}).get("prepare") or {}).get("json") or {}
    error = prepared.get("error") or {}
    if error:
        return f": {error.get('code')}: {error.get('message', '')[:160]}"
    decode = ((r.get("source") or {}).get("ffdecode") or {}).get("messages") or []
    return f": {prepared.get('action', '')}" + (f"; ffmpeg: {decode[0][:120]}" if decode else "")
