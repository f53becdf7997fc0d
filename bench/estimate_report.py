#!/usr/bin/env python3
"""Reads bench/estimate-accuracy.sh's logs and prints, per preset, each clip's estimates against its real size, then
the Markdown table of docs/size.md: median and worst error of the dry run's estimate (the sampled one) and of the
plain export's guess, over the transcodes; whether the report's estimate is the dry run's; how the progress
records' projection stood at 20-50 % of the output.

    python3 bench/estimate_report.py bench/work/estimate/logs 1280x720 highest

The error of an estimate E of a real size A is max(E/A, A/E) - 1 (a factor: 0.15 is 15 % either way, 1.0 is 2x)."""
import json
import os
import statistics
import sys


def records(path):
    """The JSON records of a JSON Lines file (lines that are not JSON are skipped)."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            try:
                yield json.loads(line)
            except ValueError:
                continue


def error(estimate, actual):
    """Symmetric error factor: 0 is exact, 1 is off by 2x either way."""
    return max(estimate / actual, actual / estimate) - 1


def base(path):
    return os.path.basename(path or "")


def collect(folder):
    """Per clip (its file name): the dry run's estimate and method, the guess, the report's estimate and method,
    the real size, and the projections at 20-50 % (fraction, projected bytes)."""
    clips = {}
    for r in records(os.path.join(folder, "dry-run.jsonl")):
        if r.get("kind") == "planned":
            p = r["payload"]
            clips.setdefault(base(p["input"]), {}).update(dry=p.get("estimatedBytes"), dryMethod=p.get("estimateMethod"),
                                                         action=p.get("action"))
    for r in records(os.path.join(folder, "guess.jsonl")):
        if r.get("kind") == "started":
            p = r["payload"]
            clips.setdefault(base(p["input"]), {}).update(guess=p.get("estimatedBytes"), guessMethod=p.get("estimateMethod"))
    jobs = {}
    for r in records(os.path.join(folder, "run.jsonl")):
        p = r.get("payload", {})
        if r.get("kind") == "started" and "job" in r:
            jobs[r["job"]] = base(p["input"])
            clips.setdefault(jobs[r["job"]], {}).update(startedEstimate=p.get("estimatedBytes"), startedMethod=p.get("estimateMethod"))
        elif r.get("kind") == "progress" and r.get("job") in jobs and p.get("projectedBytes"):
            clips[jobs[r["job"]]].setdefault("projections", []).append((p["fraction"], p["projectedBytes"]))
    report = os.path.join(folder, "report.json")
    if os.path.exists(report):
        with open(report) as f:
            for row in json.load(f).get("rows", []):
                c = clips.setdefault(base(row["input"]), {})
                c.update(actual=row.get("bytesOut"), reported=row.get("estimatedBytes"), reportedMethod=row.get("estimateMethod"),
                         route=row.get("route"))
    return clips


def summary(values):
    return (statistics.median(values), max(values)) if values else (None, None)


def pct(x):
    return "–" if x is None else f"{x * 100:.0f} %"


def main():
    folder, presets = sys.argv[1], sys.argv[2:]
    table = []
    for preset in presets:
        clips = collect(os.path.join(folder, preset))
        print(f"\n{preset}: clip, real bytes, dry run (method) ratio, report = dry run, guess ratio, projection at 20-50 %")
        dry_errors, guess_errors, short_errors, projection_errors, same = [], [], [], [], 0
        for name in sorted(clips):
            c = clips[name]
            actual = c.get("actual")
            if not actual or c.get("route") != "transcode" or not c.get("dry"):
                print(f"  {name:28} not a transcode here ({c.get('route')}, {c.get('action')})")
                continue
            dry, guess = c["dry"], c.get("guess")
            dry_errors.append(error(dry, actual))
            if guess:
                guess_errors.append(error(guess, actual))
            if c.get("reported") == dry:
                same += 1
            window = [b for f, b in c.get("projections", []) if 0.2 <= f <= 0.5]
            projection = window[0] if window else None
            if projection:
                projection_errors.append(error(projection, actual))
            print(f"  {name:28} {actual:>10} {dry / actual:6.2f} ({c.get('dryMethod') or '?'}) "
                  f"{'yes' if c.get('reported') == dry else 'NO (' + str(c.get('reported')) + ')':>4} "
                  f"{(guess / actual if guess else float('nan')):6.2f} "
                  f"{(projection / actual if projection else float('nan')):6.2f}")
        real = [error(c["dry"], c["actual"]) for name, c in clips.items()
                if name.startswith("real-") and c.get("actual") and c.get("route") == "transcode" and c.get("dry")]
        if real:
            rm, rw = summary(real)
            print(f"  of which {len(real)} real files: dry run median {pct(rm)}, worst {pct(rw)}")
        n = len(dry_errors)
        table.append((preset, n, summary(dry_errors), summary(guess_errors), summary(projection_errors), same))
        dm, dw = summary(dry_errors)
        print(f"  {n} transcodes: dry run median {pct(dm)}, worst {pct(dw)}; report = dry run for {same}")
    print("\n| preset | transcodes | sampled (dry run, report): median | worst | guess (plain export): median | worst "
          "| projection at 20-50 %: median | worst |")
    print("|---|---|---|---|---|---|---|---|")
    for preset, n, (dm, dw), (gm, gw), (pm, pw), same in table:
        print(f"| `{preset}` | {n} | {pct(dm)} | {pct(dw)} | {pct(gm)} | {pct(gw)} | {pct(pm)} | {pct(pw)} |")
    goal = all(d[0] is not None and d[0] <= 0.15 and d[1] <= 1.0 for _, _, d, _, _, _ in table)
    print(f"\ngoal (median <= 15 %, worst <= 2x for every preset): {'met' if goal else 'MISSED'}")
    return 0 if goal else 1


if __name__ == "__main__":
    sys.exit(main())
