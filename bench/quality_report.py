#!/usr/bin/env python3
"""Reads bench/quality-target.sh's logs and prints, per clip, what `--quality` chose and achieved against the fixed-CRF
baseline, the three goals of issue 47 with ✓/✗, and the Markdown table of docs/performance.md.

    python3 bench/quality_report.py bench/work/quality/logs

The logs folder holds: target (e.g. ssim:0.97), clips.tsv (name, seconds), baseline.tsv (name, the clip's own largest
CRF meeting the target, bytes and score there, the baseline CRF, bytes and score there), and per clip of ours
NAME.first.{jsonl,time,rc} (the records, `/usr/bin/time -f '%U %S %M'`, exit status), NAME.cli (the output's score by
the ffmpeg CLI), NAME.rerun.{jsonl,time,rc}; quality-unavailable when the tool refused `--quality`."""
import json
import os
import statistics
import sys

TOLERANCE = {"ssim": 0.001, "psnr": 0.1}   # issue 47: mean >= target - 0.001 SSIM, - 0.1 dB PSNR
LONG = 29.9                                # seconds: a "30 s or longer" clip (the search-cost goal's median)
BYTES_GOAL, SEARCH_GOAL, SHORT_SEARCH_GOAL = 0.75, 0.6, 2.0


def read(folder, name):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return f.read().strip()


def tsv(folder, name):
    text = read(folder, name)
    return [line.split("\t") for line in text.splitlines() if line] if text else []


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def records(folder, name):
    text = read(folder, name) or ""
    for line in text.splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            continue


def cpu(folder, name):
    """User + sys seconds and peak RSS (KiB) from `/usr/bin/time -f '%U %S %M' -o` (its last line)."""
    text = read(folder, name)
    if not text:
        return None, None
    fields = text.splitlines()[-1].split()
    if len(fields) < 3:
        return None, None
    return float(fields[0]) + float(fields[1]), int(fields[2])


def run(folder, clip, which):
    """One `--quality` export: exit status, CPU, the completed record's bytes and quality (None if missing)."""
    rc = read(folder, f"{clip}.{which}.rc")
    if rc is None:
        return None
    out = {"rc": int(rc), "quality": None, "bytes": None, "failed": None}
    out["cpu"], out["rss"] = cpu(folder, f"{clip}.{which}.time")
    searched = None
    for r in records(folder, f"{clip}.{which}.jsonl"):
        p = r.get("payload", {})
        if r.get("kind") == "completed":
            out["bytes"] = p.get("bytes")
            out["quality"] = p.get("quality")
        elif r.get("kind") == "qualitySearched":
            searched = p
        elif r.get("kind") == "failed":
            out["failed"] = p.get("message")
    q = out["quality"]
    if q is not None and isinstance(q.get("search"), dict):   # the record's `search` object (docs/quality.md)
        s = q["search"]
        q.setdefault("cached", s.get("cached"))
        q.setdefault("searchSeconds", s.get("cpuSeconds"))
        q.setdefault("probes", s.get("probes"))
        q.setdefault("windows", s.get("windows"))
    if q is not None and searched is not None:   # the search's own record, where the completed one leaves a field out
        for key in ("cached", "searchSeconds", "probes"):
            q.setdefault(key, searched.get(key))
    return out


def fmt(x, digits):
    return "-" if x is None else f"{x:.{digits}f}"


def kb(b):
    return "-" if b is None else f"{b / 1000:.0f}k"


def collect(folder):
    target = read(folder, "target") or "ssim:0.97"
    metric, goal = target.split(":", 1)
    seconds = {row[0]: num(row[1]) for row in tsv(folder, "clips.tsv")}
    clips = []
    for row in tsv(folder, "baseline.tsv"):
        name, own, own_bytes, own_score, base_crf, base_bytes, base_score = (row + ["-"] * 7)[:7]
        c = {"name": name, "seconds": seconds.get(name), "own": int(own), "ownBytes": num(own_bytes),
             "ownScore": num(own_score), "baseCRF": int(base_crf), "baseBytes": num(base_bytes),
             "baseScore": num(base_score), "cli": num(read(folder, f"{name}.cli")),
             "first": run(folder, name, "first"), "rerun": run(folder, name, "rerun")}
        q = (c["first"] or {}).get("quality") or {}
        c["q"] = q
        search = num(q.get("searchSeconds"))
        total = (c["first"] or {}).get("cpu")
        c["search"] = search
        c["encode"] = total - search if total is not None and search is not None else None
        c["ratio"] = search / c["encode"] if search is not None and c["encode"] else None
        clips.append(c)
    return metric, float(goal), clips


def table(metric, clips, markdown):
    head = ["clip", "s", "CRF chosen", "achieved (ours)", "achieved (CLI)", "p5", "bytes", "bytes at baseline CRF",
            "own max CRF", "search / encode CPU"]
    rows = []
    d = 4 if metric == "ssim" else 2
    for c in clips:
        q = c["q"]
        ratio = "-" if c["ratio"] is None else f"{c['search']:.1f} / {c['encode']:.1f} s = {c['ratio']:.2f}"
        rows.append([c["name"], fmt(c["seconds"], 1), fmt(num(q.get("crf")), 1), fmt(num(q.get("achieved")), d),
                     fmt(c["cli"], d), fmt(num(q.get("p5")), d), kb((c["first"] or {}).get("bytes")), kb(c["baseBytes"]),
                     str(c["own"]), ratio])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    return "\n".join("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip() for r in [head] + rows)


def baseline_table(metric, clips):
    """The fixed-CRF part alone: each clip's own largest CRF meeting the target and the baseline CRF's bytes."""
    d = 4 if metric == "ssim" else 2
    head = ["clip", "s", "own max CRF", "score there", "bytes there", "baseline CRF", "score there", "bytes there"]
    rows = [[c["name"], fmt(c["seconds"], 1), str(c["own"]), fmt(c["ownScore"], d), kb(c["ownBytes"]), str(c["baseCRF"]),
             fmt(c["baseScore"], d), kb(c["baseBytes"])] for c in clips]
    widths = [max(len(x) for x in col) for col in zip(head, *rows)]
    return "\n".join("  ".join(x.ljust(w) for x, w in zip(r, widths)).rstrip() for r in [head] + rows)


def goals(metric, goal, clips, unavailable):
    """The footer lines and the three goals' verdicts (None = not measured)."""
    tol = TOLERANCE[metric]
    base_crf = clips[0]["baseCRF"] if clips else -1
    lines = []
    base_total = sum(c["baseBytes"] or 0 for c in clips)
    own_total = sum(c["ownBytes"] or 0 for c in clips)
    lines.append(f"baseline: CRF {base_crf} (the largest integer CRF meeting {metric}:{goal:g} on every clip), "
                 f"{base_total / 1e6:.2f} MB in all" if base_crf >= 0 else
                 f"baseline: none (a clip misses {metric}:{goal:g} even at CRF 0)")
    if base_total:
        lines.append(f"each clip at its own largest integer CRF (the best a per-clip fixed CRF can do): "
                     f"{own_total / 1e6:.2f} MB = {own_total / base_total:.3f} x the baseline")
    if unavailable:
        lines.append("ours: unavailable: " + unavailable.replace("\n", " "))
        return lines, (None, None, None)
    done = [c for c in clips if c["first"] and c["first"]["rc"] == 0 and c["first"]["bytes"]]
    for c in clips:
        if c not in done:
            why = (c["first"] or {}).get("failed") or ("not run" if not c["first"] else f"exit {c['first']['rc']}")
            lines.append(f"ours: {c['name']}: no output ({why})")
    if not done:
        return lines, (None, None, None)
    ours_total = sum(c["first"]["bytes"] for c in done)
    base_done = sum(c["baseBytes"] or 0 for c in done)
    bytes_ratio = ours_total / base_done if base_done else None
    lines.append(f"total bytes: ours {ours_total / 1e6:.2f} MB / baseline {base_done / 1e6:.2f} MB = "
                 f"{fmt(bytes_ratio, 3)} (goal <= {BYTES_GOAL})")
    misses = [c for c in done if c["cli"] is None or c["cli"] < goal - tol]
    worst = min(done, key=lambda c: c["cli"] if c["cli"] is not None else -1e9)
    lines.append(f"every clip meets the target (CLI mean >= {goal - tol:g}): "
                 f"{len(done) - len(misses)}/{len(done)}; lowest {worst['name']} {fmt(worst['cli'], 5)}"
                 + ("; misses: " + ", ".join(c["name"] for c in misses) if misses else ""))
    gaps = [abs(num(c["q"].get("achieved")) - c["cli"]) for c in done
            if num(c["q"].get("achieved")) is not None and c["cli"] is not None]
    if gaps:
        lines.append(f"ours' own measure vs the CLI's: largest difference {max(gaps):.5f}")
    corrective = [c["name"] for c in done if c["q"].get("corrective")]
    unmet = [c["name"] for c in done if c["q"].get("met") is False]
    lines.append(f"corrective encodes: {', '.join(corrective) or 'none'}; recorded met: false: {', '.join(unmet) or 'none'}")
    long_ratios = [c["ratio"] for c in done if c["ratio"] is not None and (c["seconds"] or 0) >= LONG]
    short_ratios = [c["ratio"] for c in done if c["ratio"] is not None and (c["seconds"] or 0) < LONG]
    median_long = statistics.median(long_ratios) if long_ratios else None
    max_short = max(short_ratios) if short_ratios else None
    lines.append(f"search CPU / encode CPU: median {fmt(median_long, 2)} over {len(long_ratios)} clips >= 30 s "
                 f"(goal <= {SEARCH_GOAL}); max {fmt(max_short, 2)} over {len(short_ratios)} shorter ones "
                 f"(goal <= {SHORT_SEARCH_GOAL})")
    reruns = [c for c in done if c["rerun"] and c["rerun"]["rc"] == 0 and c["rerun"]["quality"]]
    searched_again = [c["name"] for c in reruns
                      if not c["rerun"]["quality"].get("cached") or (num(c["rerun"]["quality"].get("searchSeconds")) or 0) > 0]
    rerun_search = [num(c["rerun"]["quality"].get("searchSeconds")) or 0 for c in reruns]
    lines.append(f"rerun: {len(reruns)} clips run again; searched again: {', '.join(searched_again) or 'none'}; "
                 f"largest rerun searchSeconds {fmt(max(rerun_search) if rerun_search else None, 2)}")
    meets = not misses and len(done) == len(clips)
    smaller = bytes_ratio is not None and bytes_ratio <= BYTES_GOAL
    cheap = None   # not measured without a clip of 30 s or longer
    if long_ratios:
        cheap = (median_long <= SEARCH_GOAL and (max_short is None or max_short <= SHORT_SEARCH_GOAL)
                 and bool(reruns) and not searched_again)
    return lines, (meets, smaller, cheap)


def mark(ok):
    return "?" if ok is None else ("✓" if ok else "✗")


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "bench/work/quality/logs"
    metric, goal, clips = collect(folder)
    if not clips:
        sys.exit(f"quality-report: no baseline.tsv in {folder}")
    unavailable = read(folder, "quality-unavailable")
    lines, (meets, smaller, cheap) = goals(metric, goal, clips, unavailable)
    elapsed = num(read(folder, "elapsed"))
    print(f"quality target {metric}:{goal:g}, --preset highest (x264 medium), {len(clips)} clips "
          f"({sum(1 for c in clips if (c['seconds'] or 0) >= LONG)} of 30 s or longer)"
          + (f", bench {elapsed / 60:.1f} min" if elapsed else ""))
    print("fixed CRF (mediaexport --preset highest --crf N, scored by the ffmpeg CLI):")
    print(baseline_table(metric, clips))
    print()
    print(f"--quality {metric}:{goal:g}:")
    print(table(metric, clips, markdown=False))
    print()
    for line in lines:
        print(line)
    print()
    print(f"{mark(meets)} every clip meets the target on the full-file measure (CLI mean >= target - {TOLERANCE[metric]:g})")
    print(f"{mark(smaller)} total bytes <= {BYTES_GOAL} x the fixed-CRF bytes meeting the target on every clip")
    print(f"{mark(cheap)} search CPU <= {SEARCH_GOAL} x one encode (median, clips >= 30 s; shorter <= {SHORT_SEARCH_GOAL} x); "
          "a rerun does not search again")
    print()
    print("Markdown (docs/performance.md):")
    print()
    print(table(metric, clips, markdown=True))
    print()
    for line in lines:
        print(f"- {line}")


if __name__ == "__main__":
    main()
