"""bench/batch.sh's report: medians of its runs (batch-results.tsv), ffprobe checks of every output against the plan
ours makes for its input (its `started` record, through bench/presets.py), ours' summary lines, and the CPU and memory
checks. Exits 2 on an invalid output, 3 on a missed check.

    python3 bench/batch_report.py RESULTS OUTS LOGS SET12 SET20 OURS BIN PRESET MEM_MAX EXPECT12 EXPECT20
"""
import glob, json, os, re, statistics, subprocess, sys
from collections import defaultdict

import presets

results, outs, logs, set12, set20, ours, binary, preset, mem_max, exp12, exp20 = sys.argv[1:12]
mem_max = float(mem_max)
runs = defaultdict(list)
for line in open(results):
    case, run, wall, cpu, rss, pss = line.rstrip("\n").split("\t")
    runs[case].append((float(wall), float(cpu), int(rss) / 1024, int(pss) / 1024))
med = lambda case, i: statistics.median(r[i] for r in runs[case])
problems, misses = [], []

print(f"{'case':<12}{'wall s':>9}{'ours/it':>9}{'cpu s':>9}{'ours/it':>9}{'peak RSS MiB':>14}{'tree PSS MiB':>14}{'out MiB':>9}")
def out_mib(case):
    return sum(os.path.getsize(f) for f in glob.glob(os.path.join(outs, case, "**", "*.*"), recursive=True)
               if not os.path.basename(f).startswith(".")) / 2**20
shown = [c for c in (ours, "loop", "xargs-P2", "ours-also") if c in runs]
for case in shown:
    w, c = med(case, 0), med(case, 1)
    rw = "" if case == ours else f"{med(ours, 0) / w:.3f}"
    rc = "" if case == ours else f"{med(ours, 1) / c:.3f}"
    print(f"{case:<12}{w:>9.2f}{rw:>9}{c:>9.2f}{rc:>9}{med(case, 2):>14.1f}{med(case, 3):>14.1f}{out_mib(case):>9.1f}")
print("(medians; ours/it = ours' figure divided by this row's. Peak RSS is GNU time's largest single process;"
      " tree PSS sums every process of the run, sampled every 0.2 s.)")
print()

# Outputs: every input has one, with the video codec and size and the audio codec, rate and channels of ours' plan
# for it (the .mov/.mp4 ours remuxes or copies keep their 128k audio), yuv420p, and the input's duration.
ext = presets.preset_entry(binary, preset).get("defaultExtension", "mp4")
plans = {}
def planned(path):   # (video codec, W, H, audio codec, sample rate, channels); None where the input's stays
    if path not in plans:
        plan = presets.started(binary, preset, path)
        v = next(s for s in plan["streams"] if s["type"] == "video")
        a = next(s for s in plan["streams"] if s["type"] == "audio")
        change = presets.changes(a)
        plans[path] = (v["outputCodec"], v["width"], v["height"], a["outputCodec"], change.get("sampleRate"), change.get("downmix"))
    return plans[path]
def probe(path):
    j = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries",
        "format=duration:stream=codec_type,codec_name,pix_fmt,width,height,sample_rate,channels",
        "-of", "json", path], check=True, capture_output=True, text=True).stdout)
    v = next((s for s in j["streams"] if s["codec_type"] == "video"), None)
    a = next((s for s in j["streams"] if s["codec_type"] == "audio"), None)
    return float(j["format"].get("duration", "nan")), v, a
def verify(case, inset):
    ins = sorted(os.path.relpath(f, inset) for f in glob.glob(os.path.join(inset, "**", "*.*"), recursive=True))
    outs_ = sorted(os.path.relpath(f, os.path.join(outs, case)) for f in glob.glob(os.path.join(outs, case, "**", "*.*"), recursive=True))
    want = sorted(os.path.splitext(f)[0] + "." + ext for f in ins)
    bad = []
    if outs_ != want: bad.append(f"outputs {outs_} != expected {want}")
    codecs = defaultdict(int)
    for rel in ins:
        o = os.path.join(outs, case, os.path.splitext(rel)[0] + "." + ext)
        if not os.path.exists(o): continue
        d_in, _, ai = probe(os.path.join(inset, rel))
        vc, w, h, ac, rate, channels = planned(os.path.join(inset, rel))
        d, v, a = probe(o)
        if not v or v["codec_name"] != vc or v.get("pix_fmt") != "yuv420p": bad.append(f"{rel}: video {v and v['codec_name']} {v and v.get('pix_fmt')}, expected {vc} yuv420p"); continue
        if (v["width"], v["height"]) != (w, h): bad.append(f"{rel}: {v['width']}x{v['height']}, expected {w}x{h} (ours' plan)")
        want_a = (ac, int(rate or ai["sample_rate"]), int(channels or ai["channels"]))
        if not a or (a["codec_name"], int(a["sample_rate"]), a["channels"]) != want_a: bad.append(f"{rel}: audio {a}, expected {want_a}")
        if abs(d - d_in) > 0.1: bad.append(f"{rel}: duration {d:.3f}s vs input {d_in:.3f}s")
        codecs[f"{vc} {v['width']}x{v['height']} + {ac}"] += 1
    print(f"  {case:<10} {len(outs_):>2}/{len(ins)} outputs: " + ", ".join(f"{n}x {k}" for k, n in sorted(codecs.items()))
          + ("" if not bad else "  INVALID"))
    problems.extend(f"{case}: {b}" for b in bad)
def summary_line(case, expect):
    text = open(os.path.join(logs, f"{case}.log")).read()
    m = re.search(r"^\d+ assets: .*$", text, re.M)
    line = m.group(0) if m else "(no summary line)"
    ok = expect in line and " 0 failed" in line and " 0 fell back" in line
    want = f"{expect + ', ' if expect else ''}0 fell back, 0 failed"
    print(f"  {case:<10} summary: {line}" + ("" if ok else f"   <- expected {want}"))
    if not ok: misses.append(f"{case}: summary is not '{want}'")
print("outputs (ffprobe):")
for case in shown: verify(case, set12)
memory = "mem20-j1" in runs
for case in ("mem20-j1", "mem20-j2") if memory else (): verify(case, set20)
summary_line(ours, exp12)
for case in ("mem20-j1", "mem20-j2") if memory else (): summary_line(case, exp20)
print()

# CPU time, ours / the loop's: every repeat, and the median's against the target.
cpu_max = float(os.environ.get("CPU_RATIO_MAX", "0.5"))
per_run = [o[1] / l[1] for o, l in zip(runs[ours], runs["loop"])]
cpu_ratio = med(ours, 1) / med("loop", 1)
ok = cpu_ratio <= cpu_max
print(f"CPU time ours/loop: {cpu_ratio:.3f} of the medians (each repeat: {', '.join(f'{r:.3f}' for r in per_run)}); "
      f"target <= {cpu_max:g}: {'ok' if ok else 'MISS'}")
if not ok: misses.append(f"ours' CPU time is {cpu_ratio:.2f}x the ffmpeg loop's")
if memory:
    j1, j2 = med("mem20-j1", 2), med("mem20-j2", 2)
    ratio = j2 / j1
    ok = ratio < mem_max
    print(f"memory, 20 inputs: --jobs 1 peak RSS {j1:.1f} MiB ({med('mem20-j1', 0):.1f} s), --jobs 2 {j2:.1f} MiB "
          f"({med('mem20-j2', 0):.1f} s); ratio {ratio:.2f} (target < {mem_max:g}): {'ok' if ok else 'MISS'}")
    if not ok: misses.append(f"--jobs 2 peak RSS is {ratio:.2f}x --jobs 1's")
print()
for x in problems: print(f"INVALID OUTPUT: {x}")
for x in misses: print(f"target missed: {x}")
if not problems and not misses: print("all checks passed")
sys.exit(2 if problems else (3 if misses else 0))
