"""bench/run.sh's report: medians of its runs (results.tsv), ffprobe checks of every output against the plan ours
printed (plans.tsv: case, width, height, video codec, container), and the summary table. Reads its settings from the
S_* variables run.sh sets; exits 2 on an invalid output, 3 on a missed target."""
import json, os, statistics, subprocess, sys
from collections import defaultdict

env = os.environ
results, work = env["S_RESULTS"], env["S_WORK"]
cases = env["S_CASES"].split()
in_path, hdr_path = env["S_MAIN_IN"], env["S_HDR_IN"]
# The CPU-time target by the planned video codec (copy: passthrough, judged on wall time).
t_codec = {"h264": float(env["S_T_H264"]), "hevc": float(env["S_T_HEVC"]), "av1": float(env["S_T_AV1"])}
t_tone, t_maxsize = float(env["S_T_TONE"]), float(env["S_T_MAXSIZE"])
t_pass, t_rss = float(env["S_T_PASS"]), float(env["S_T_RSS"])
mem, mem_growth, mem_short, mem_long = env["S_MEM"] == "1", float(env["S_MEM_GROWTH"]), env["S_MEM_SHORT"], env["S_MEM_LONG"]
plans = {}   # case -> (width, height, video codec, container), as ours planned it
for line in open(env["S_PLANS"]):
    case, w, h, codec, container = line.rstrip("\n").split("\t")
    plans[case] = (w, h, codec, container)
runs = defaultdict(dict)
for line in open(results):
    case, tool, run, wall, cpu, rss = line.rstrip("\n").split("\t")
    runs[case, tool][int(run)] = (float(wall), float(cpu), int(rss) / 1024)
med = lambda case, tool, i: statistics.median(r[i] for r in runs[case, tool].values())
problems, misses = [], []

def probe(path):
    j = json.loads(subprocess.run(["ffprobe", "-v", "error", "-show_entries",
        "format=duration,size:stream=codec_type,codec_name,profile,width,height,pix_fmt,color_range,color_space,"
        "color_transfer,color_primaries,sample_rate,channels,bit_rate,duration",
        "-of", "json", path], check=True, capture_output=True, text=True).stdout)
    v = next((s for s in j["streams"] if s["codec_type"] == "video"), None)
    a = next((s for s in j["streams"] if s["codec_type"] == "audio"), None)
    return j["format"], v, a

def describe(path):
    fmt, v, a = probe(path)
    parts = []
    if v:
        color = ""
        if v.get("color_transfer") or v.get("color_primaries"):
            color = (f" {v.get('color_primaries', '?')}/{v.get('color_transfer', '?')}/{v.get('color_space', '?')}"
                     f"/{v.get('color_range', '?')}")
        parts.append(f"{v['codec_name']} {v['width']}x{v['height']} {v.get('pix_fmt', '?')}{color} "
                     f"{float(v.get('duration', 'nan')):.3f}s")
    if a: parts.append(f"{a['codec_name']} {a['sample_rate']}Hz {a['channels']}ch "
                       f"{int(a.get('bit_rate', 0)) // 1000}k {float(a.get('duration', 'nan')):.3f}s")
    return fmt, v, a, ", ".join(parts)

def ratio(a, b): return a / b if b > 0 else float("inf")

def video_md5(path, stream="0:v:0"):   # of the packets as stored: equal when both sides encoded the same pictures alike
    return subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", stream, "-c", "copy", "-f", "md5", "-"],
                          capture_output=True, text=True).stdout.strip()

# One row per case: (case, target kind, target); kind: cpu (user+sys ratio) or wall. Every row also has the RSS target.
rows = []
for case in cases:
    if case == "tonemap":
        rows.append((case, "cpu", t_tone))
    elif case == "maxsize":
        rows.append((case, "cpu", t_maxsize))
    elif plans[case][2] == "copy":
        rows.append((case, "wall", t_pass))
    else:
        rows.append((case, "cpu", t_codec[plans[case][2]]))

def fmt_target(t): return f"{t:.2f}"
table = []
for case, kind, target in rows:
    ow, fw, oc, fc = med(case, "ours", 0), med(case, "ffmpeg", 0), med(case, "ours", 1), med(case, "ffmpeg", 1)
    orss, frss = med(case, "ours", 2), med(case, "ffmpeg", 2)
    wr, cr = ratio(ow, fw), ratio(oc, fc)
    r = cr if kind == "cpu" else wr
    drss = orss - frss
    r_ok, m_ok = r <= target, drss <= t_rss
    if not r_ok: misses.append(f"{case}: {kind}-time ratio {r:.3f} > {fmt_target(target)} (over by {(r / target - 1) * 100:.1f} %)")
    if not m_ok: misses.append(f"{case}: peak RSS {orss:.1f} MiB, {drss:+.1f} MiB over ffmpeg's {frss:.1f} MiB (target <= +{t_rss:g})")
    verdict = (f"{kind} <= {fmt_target(target)} {'ok' if r_ok else 'MISS'}, "
               f"ΔRSS <= +{t_rss:g} {'ok' if m_ok else 'MISS'}")
    table.append([case, f"{oc:.2f}", f"{fc:.2f}", f"{cr:.3f}", f"{wr:.3f}", f"{orss:.1f}", f"{frss:.1f}",
                  f"{drss:+.1f}", verdict])

print("per case, medians (wall s, ours / ffmpeg), and the cpu ratio of each run (run 1, 2, ...):")
for case, kind, target in rows:
    o, f = runs[case, "ours"], runs[case, "ffmpeg"]
    print(f"  {case:<16} wall {med(case, 'ours', 0):7.2f} / {med(case, 'ffmpeg', 0):7.2f} s;  cpu ratios: "
          + "  ".join(f"{ratio(o[r][1], f[r][1]):.3f}" for r in sorted(o) if r in f))
if "tonemap" in cases:
    oc, rc = med("tonemap", "ours", 1), med("tonemap", "ffmpeg-ref", 1)
    print(f"  tonemap, ffmpeg in the issue's reference order (tone map at full size, then scale; information): "
          f"{rc:.2f} s cpu, {med('tonemap', 'ffmpeg-ref', 0):.2f} s wall, {med('tonemap', 'ffmpeg-ref', 2):.1f} MiB; "
          f"cpu ratio ours/ref {ratio(oc, rc):.3f}")
print()

def check_outputs(case, in_file, tools, ext, want_trc=None):
    in_fmt, in_v, in_a, in_desc = describe(in_file)
    in_dur = float(in_fmt["duration"])
    print(f"  {case}: input {os.path.basename(in_file)}: {in_desc}, {int(in_fmt['size']) / 2**20:.1f} MiB")
    sizes, md5s = {}, {}
    for tool in tools:
        path = os.path.join(work, "out", f"{case}.{tool}.{ext}")
        fmt, v, a, desc = describe(path)
        sizes[tool] = int(fmt["size"])
        md5s[tool] = video_md5(path)
        print(f"  {case:<12} {tool:<10} {int(fmt['size']) / 2**20:7.2f} MiB  {desc}")
        w, h, codec, _ = plans[case]
        if codec == "copy":
            codec = in_v["codec_name"] if in_v else None
        if not v or v["codec_name"] != codec:
            problems.append(f"{case}/{tool}: no {codec} video stream (ours' plan)")
        elif (str(v["width"]), str(v["height"])) != (w, h):
            problems.append(f"{case}/{tool}: {v['width']}x{v['height']}, expected {w}x{h} (ours' plan)")
        if want_trc and v and v.get("color_transfer") != want_trc:
            problems.append(f"{case}/{tool}: color_transfer {v.get('color_transfer')}, expected {want_trc}")
        if not a or a["codec_name"] != "aac":
            problems.append(f"{case}/{tool}: no AAC audio stream")
        if abs(float(fmt["duration"]) - in_dur) > 0.1:
            problems.append(f"{case}/{tool}: duration {float(fmt['duration']):.3f}s vs input {in_dur:.3f}s")
    for tool in tools[1:]:
        same = "identical" if md5s["ours"] and md5s["ours"] == md5s[tool] else "different"
        print(f"  {case:<12} size ours/{tool}: {sizes['ours'] / sizes[tool]:.3f}; video bitstream: {same}")

def ours_records(run):   # ours' JSON records of one maxsize run
    with open(os.path.join(work, "logs", f"maxsize.ours.{run}.log")) as f:
        return [json.loads(l) for l in f if l.startswith("{")]

def maxsize_report():
    limit = int(env["S_MAXSIZE"])
    size = {t: os.path.getsize(os.path.join(work, "out", f"maxsize.{t}.mp4")) for t in ("ours", "ffmpeg")}
    print(f"  maxsize      limit {limit} bytes: ours {size['ours']} ({size['ours'] / limit * 100:.1f} %), "
          f"ffmpeg {size['ffmpeg']} ({size['ffmpeg'] / limit * 100:.1f} %); size ours/ffmpeg {size['ours'] / size['ffmpeg']:.4f}")
    if size["ours"] > limit: problems.append(f"maxsize/ours: {size['ours']} bytes, over the {limit}-byte limit")
    if size["ffmpeg"] > limit: misses.append(f"maxsize: ffmpeg's output is {size['ffmpeg']} bytes, over the {limit}-byte limit")
    # Audio packet by packet: the AAC encoder takes the rate in bits/s, so equal packets say the rate was the same.
    a_ours, a_ff = (subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(work, "out", f"maxsize.{t}.mp4"),
                                    "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"], capture_output=True,
                                   text=True).stdout.split("\n") for t in ("ours", "ffmpeg"))
    a_ours, a_ff = ([l.rsplit(",", 1)[-1] for l in a if l and not l.startswith("#")] for a in (a_ours, a_ff))
    differ = sum(x != y for x, y in zip(a_ours, a_ff)) + abs(len(a_ours) - len(a_ff))
    print(f"  maxsize      {env['S_MAXSIZE_RATES']}")
    print(f"  maxsize      audio packets: {len(a_ours)} vs {len(a_ff)}, {differ} different")
    # Ours' phases, wall clock, from its progress records: the first comes as pass 1 starts (after the probe and the
    # CRF samples); pass 1 is the first 30 % of the fraction.
    phases, notes = [], set()
    for run in sorted(runs["maxsize", "ours"]):
        recs = ours_records(run)
        started = next(r["payload"] for r in recs if r["kind"] == "started")
        done = next((r["payload"] for r in recs if r["kind"] == "completed"), {})
        notes.add(tuple(started.get("notes", [])))
        retried = [n for n in done.get("notes", []) if "first try came to" in n]
        if retried:
            misses.append(f"maxsize run {run}: ours encoded a second time ({retried[0]})")
            continue
        prog = [r["payload"] for r in recs if r["kind"] == "progress"]
        first = [p for p in prog if p["fraction"] < 0.3]
        second = [p for p in prog if p["fraction"] >= 0.3]
        if prog and first and second and "wallTime" in done:
            end1 = (first[-1]["elapsed"] + second[0]["elapsed"]) / 2
            phases.append((prog[0]["elapsed"], end1 - prog[0]["elapsed"], done["wallTime"] - end1))
    if len(notes) > 1: misses.append(f"maxsize: ours' runs chose different rates: {sorted(notes)}")
    if phases:
        pre, p1, p2 = (statistics.median(p[i] for p in phases) for i in range(3))
        total = pre + p1 + p2
        print(f"  maxsize      ours' phases (wall s, medians, from its progress records): probe + CRF samples {pre:.2f} "
              f"({pre / total * 100:.1f} %), pass 1 {p1:.2f}, pass 2 + checks {p2:.2f}")
    f1, f2 = (tuple(med("maxsize", f"ffmpeg-pass{n}", i) for i in range(3)) for n in (1, 2))
    print(f"  maxsize      ffmpeg's passes (medians): pass 1 {f1[0]:.2f} s wall, {f1[1]:.2f} s cpu, {f1[2]:.1f} MiB; "
          f"pass 2 {f2[0]:.2f} s wall, {f2[1]:.2f} s cpu, {f2[2]:.1f} MiB")

print("outputs (ffprobe):")
for case in cases:
    if case == "tonemap":
        check_outputs(case, hdr_path, ["ours", "ffmpeg", "ffmpeg-ref"], "mp4", want_trc="bt709")
    elif case == "maxsize":
        check_outputs(case, in_path, ["ours", "ffmpeg"], "mp4")
        maxsize_report()
    else:
        check_outputs(case, in_path, ["ours", "ffmpeg"], plans[case][3])
print()

if mem:
    s_rss, l_rss = med(f"mem-{mem_short}s", "ours", 2), med(f"mem-{mem_long}s", "ours", 2)
    growth = l_rss / s_rss - 1
    ok = growth <= mem_growth
    print(f"memory vs length (ours, peak RSS): {mem_short}s input {s_rss:.1f} MiB, {mem_long}s input {l_rss:.1f} MiB "
          f"({growth * 100:+.1f} %; target <= +{mem_growth * 100:.0f} %): {'ok' if ok else 'MISS'}")
    if not ok: misses.append(f"peak RSS grows with input length: {growth * 100:+.1f} %")
    for d in (mem_short, mem_long):
        fmt, v, a, desc = describe(os.path.join(work, "out", f"mem-{d}s.ours.mp4"))
        print(f"  mem-{d}s ours {int(fmt['size']) / 2**20:7.2f} MiB  {desc}")
    print()

for p in problems: print(f"INVALID OUTPUT: {p}")
for m in misses: print(f"target missed: {m}")
if not problems and not misses: print("all targets met")
print()

# The summary: one Markdown table, with a caption line, to paste into a note as it is.
head = ["case", "ours cpu s", "ffmpeg cpu s", "cpu ratio", "wall ratio", "ours RSS MiB", "ffmpeg RSS MiB",
        "ΔRSS MiB", "verdict"]
left = (0, len(head) - 1)
widths = [max(len(str(r[i])) for r in [head] + table) for i in range(len(head))]
def line(cells):
    return "| " + " | ".join(c.ljust(w) if i in left else c.rjust(w)
                             for i, (c, w) in enumerate(zip(cells, widths))) + " |"
load_end = " ".join(open("/proc/loadavg").read().split()[:3])
print(f"**mediaexport vs ffmpeg CLI** ({env['S_VERSION']}): {env['S_CPUS']}; input {env['S_INPUT']}; "
      + (f"medians of {env['S_REPEAT']} alternating runs" if env["S_REPEAT"] != "1" else "1 run")
      + f" (passthrough: medians of {env['S_PASS_REPEAT']}); "
      f"load avg {env['S_LOAD_START']} at start, {load_end} at end")
print()
print(line(head))
print("|" + "|".join("-" * (w + 2) if i in left else "-" * (w + 1) + ":" for i, w in enumerate(widths)) + "|")
for r in table: print(line(r))
print()
print(f"cpu = user+sys; ratios are ours/ffmpeg; ΔRSS = ours' peak RSS minus ffmpeg's. Targets: cpu ratio <= "
      f"{t_codec['h264']:.2f} for H.264 presets, <= {t_codec['hevc']:.2f} for HEVC presets and tonemap, <= "
      f"{t_codec['av1']:.2f} for AV1 presets, wall ratio <= {t_pass:.2f} "
      f"for passthrough, ΔRSS <= +{t_rss:g} MiB everywhere."
      + (" INVALID OUTPUTS: see above." if problems else ""))
sys.exit(2 if problems else (3 if misses else 0))
