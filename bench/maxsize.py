"""The `maxsize` case of bench/run.sh: the ffmpeg CLI's two passes at the rates ours chose under --max-size.

    python3 bench/maxsize.py rates LOG INPUT                        # VRATE<TAB>ARATE<TAB>HOW, then ours' note
    python3 bench/maxsize.py pass N LOG VRATE ARATE PASSLOG         # pass N's ffmpeg arguments, one a line

LOG holds ours' JSON records of a run with --json; its `started` record is the plan (streams, settings) and its note
gives the chosen rates ("size limit N bytes: video at V kb/s average, two passes[, audio at A kb/s]").
"""
import copy
import json
import re
import subprocess
import sys

import presets

NOTE = re.compile(r"size limit (\d+) bytes: video at (\d+) kb/s average, two passes(?:, audio at (\d+) kb/s)?")


def started(log):
    with open(log) as f:
        records = [json.loads(line) for line in f if line.startswith("{")]
    plan = next((r["payload"] for r in records if r["kind"] == "started"), None)
    return plan or sys.exit(f"no started record in {log}")


def rates(log, in_path):
    """The rates in bits/s. The note gives kb/s, rounded down; x264 takes kb/s anyway, but the AAC encoder takes bits/s:
    the exact rates are re-derived as OutputSize.budget does (3 % kept back, the muxer's overhead, audio at most a
    third of the room) and used when they round to the note's figures; else the note's figures x 1000. (The started
    record's `settings` are the preset's, not the rate the limit chose: this is the bench's one copy of a planner rule.)"""
    plan = started(log)
    note = next((n for n in plan.get("notes", []) if n.startswith("size limit")), "")
    m = NOTE.match(note)
    if not m:
        sys.exit(f"the size limit did not bind: ours' note is {note!r} (no two-pass rate chosen); set a lower BENCH_MAXSIZE")
    limit, vk, ak = int(m[1]), int(m[2]), int(m[3]) if m[3] else None
    preset_audio = plan["settings"]["audioBitrate"]
    d, streams = plan["duration"], plan["streams"]
    n_tx = sum(1 for s in streams if s["type"] == "audio" and s["action"] == "transcode")
    n_audio = sum(1 for s in streams if s["type"] == "audio" and s["action"] in ("transcode", "copy"))
    rate = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=avg_frame_rate",
                           "-of", "csv=p=0", in_path], check=True, capture_output=True, text=True).stdout.strip()
    num, den = rate.split("/")
    fr = int(num) / int(den)
    room = (limit * 0.97 - (1500 + d * (fr * 20 + n_audio * 47 * 10))) * 8
    a = min(preset_audio, int(room / 3 / d / n_tx)) if n_tx else 0
    v = int((room - a * n_tx * d) / d)
    if n_audio == n_tx and v // 1000 == vk and (a // 1000 == ak if ak is not None else a == preset_audio):
        return v, a, "exact, re-derived from the limit", note
    return vk * 1000, (ak * 1000 if ak is not None else preset_audio), "the note's kb/s (the re-derivation disagreed)", note


def pass_args(npass, log, vrate, arate, passlog):
    """One pass of the plan at these rates. Both passes keep every frame as ours does (`-fps_mode passthrough`:
    ffmpeg 5.1's MP4 default adds a frame in pass 2 that pass 1 did not have, and libx264 then crashes); pass 1 is
    the video alone into the null muxer, with its headers out of band as ours' (`+global_header`)."""
    plan = copy.deepcopy(started(log))
    plan["settings"].update(videoBitrate=int(vrate), crf=None, audioBitrate=int(arate))
    extra = ["-fps_mode", "passthrough", "-pass", str(npass), "-passlogfile", passlog]
    if npass == 1:
        for s in plan["streams"]:
            if s["type"] != "video":
                s["action"] = "drop"
        plan["container"] = "null"
        extra = ["-flags:v", "+global_header"] + extra + ["-an", "-f", "null"]
    return presets.plan_args(plan)[3] + extra


def main(argv):
    if argv[:1] == ["rates"] and len(argv) == 3:
        v, a, how, note = rates(argv[1], argv[2])
        print(v, a, how, sep="\t")
        print(note)
    elif argv[:1] == ["pass"] and len(argv) == 6:
        print("\n".join(pass_args(int(argv[1]), *argv[2:])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
