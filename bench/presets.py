"""The ffmpeg CLI's arguments for what mediaexport plans: the one place the bench turns the tool's decisions into
ffmpeg's words. The tool decides (output sizes, codecs, rates, resampling: its `started` record, or an entry of
`mediaexport presets --json`); this module only spells the decision for the CLI, with the encoder options the tool
sets itself (VideoEncoderSetup.encoderOptions), so both sides encode at identical settings.

    python3 bench/presets.py plan BIN PRESET INPUT [CHAIN]  # line 1: W H CODEC EXT; then one ffmpeg argument a line
    python3 bench/presets.py loop BIN PRESET                # the batch loop's arguments (shell-quoted), then EXT
"""
import json
import os
import shlex
import subprocess
import sys
import tempfile

# The tool's video codec -> the FFmpeg encoder it opens, and the private options it gives that encoder besides its
# speed and rate: x264's CPU-independent decisions, x265 quiet and one frame at a time (its frame threads make the
# bitstream depend on timing), MP4's `hvc1` tag for HEVC. SVT-AV1 gets none unless HDR metadata is kept.
VIDEO_ENCODERS = {
    "h264": ("libx264", ["-x264-params", "cpu-independent=1"]),
    "hevc": ("libx265", ["-tag:v", "hvc1", "-x265-params", "log-level=error:frame-threads=1"]),
    "av1": ("libsvtav1", []),
}
AUDIO_ENCODERS = {"aac": "aac", "opus": "libopus"}
FASTSTART = {"mp4", "mov", "m4v", "m4a"}   # the containers ours writes with the index first


def started(binary, preset, src, *extra):
    """The `started` record's payload of `mediaexport --preset PRESET SRC` (its plan), without the export: the run is
    killed as soon as the record arrives, and its output folder (a temporary one) goes with it. The output has no
    extension, so the container is the preset's own. SIGKILL, not SIGTERM: an AV1 export cancelled before its first
    frames can hang in freeing the encoder (svt_av1_enc_deinit waits for a packet that never comes)."""
    with tempfile.TemporaryDirectory(prefix="bench-plan.") as tmp:
        cmd = [binary, "--preset", preset, *extra, "--json", "-y", src, os.path.join(tmp, "plan")]
        with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as p:
            record = None
            for line in p.stdout:
                record = json.loads(line) if line.startswith("{") else None
                if record and record["kind"] == "started":
                    break
            p.kill()
    if not record or record["kind"] != "started":
        sys.exit(f"bench: no started record from {' '.join(cmd)}")
    return record["payload"]


def video_args(codec, settings):
    """Encoder, speed and rate control of a video stream, as the tool sets them (`settings`: the started record's)."""
    if codec not in VIDEO_ENCODERS:
        sys.exit(f"bench: no ffmpeg encoder known for video codec {codec!r} (bench/presets.py VIDEO_ENCODERS)")
    encoder, private = VIDEO_ENCODERS[codec]
    args = ["-c:v", encoder, "-preset", str(settings["encoderPreset"])]
    if settings.get("videoBitrate"):
        args += ["-b:v", str(settings["videoBitrate"])]
    else:
        args += ["-crf", str(settings["crf"])]
    if settings.get("maxBitrate"):   # the VBV: ours' buffer is twice the ceiling
        args += ["-maxrate", str(settings["maxBitrate"]), "-bufsize", str(2 * settings["maxBitrate"])]
    return args + private


def audio_args(codec, bitrate):
    if codec not in AUDIO_ENCODERS:
        sys.exit(f"bench: no ffmpeg encoder known for audio codec {codec!r} (bench/presets.py AUDIO_ENCODERS)")
    return ["-c:a", AUDIO_ENCODERS[codec], "-b:a", str(bitrate)]


def changes(stream):
    return {c["kind"]: c["to"] for c in stream.get("changes") or []}


def plan_args(plan, chain=None):
    """(W, H, video codec or `copy`, ffmpeg output arguments) for the plan of a `started` record. CHAIN, with {w} and
    {h} for the planned size, replaces the plain scale (the tone-mapping case) and tags the output BT.709."""
    kept = [s for s in plan["streams"] if s["action"] != "drop"]
    args = [a for s in kept for a in ("-map", f"0:{s['index']}")]
    if all(s["action"] == "copy" for s in kept):
        video = next((s for s in kept if s["type"] == "video"), {})
        return video.get("width"), video.get("height"), "copy", args + ["-c", "copy"] + container_args(plan)
    w = h = None
    codec = "none"
    for s in kept:
        if len([t for t in kept if t["type"] == s["type"]]) > 1:
            sys.exit(f"bench: more than one {s['type']} stream kept; bench/presets.py maps one per type")
        if s["action"] == "copy":
            args += [f"-c:{s['type'][0]}", "copy"]
        elif s["type"] == "video":
            w, h, codec = s["width"], s["height"], s["outputCodec"]
            args += video_args(codec, plan["settings"]) + picture_args(s, chain)
        elif s["type"] == "audio":
            args += audio_args(s["outputCodec"], plan["settings"]["audioBitrate"])
            change = changes(s)
            if "sampleRate" in change:
                args += ["-ar", change["sampleRate"]]
            if "downmix" in change:
                args += ["-ac", change["downmix"]]
        else:
            sys.exit(f"bench: a transcoded {s['type']} stream; bench/presets.py maps video and audio only")
    return w, h, codec, args + container_args(plan)


def picture_args(stream, chain):
    w, h, change = stream["width"], stream["height"], changes(stream)
    if chain:
        return ["-vf", chain.replace("{w}", str(w)).replace("{h}", str(h)), "-color_primaries", "bt709",
                "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv"]
    args = ["-vf", f"scale={w}:{h}"] if "scale" in change else []   # bicubic: the CLI's default, and ours
    if "bitDepth" in change:
        args += ["-pix_fmt", "yuv420p" if change["bitDepth"] == "8" else "yuv420p10le"]
    return args


def container_args(plan):
    return ["-movflags", "+faststart"] if plan["container"] in FASTSTART else []


def loop_args(preset):
    """The naive per-file command of the batch bench, from an entry of `mediaexport presets --json`: the preset's
    settings for every file alike, its box as an orientation-free scale that never upscales and keeps even sizes."""
    v, a = preset["video"], preset["audio"]
    settings = {"encoderPreset": v["encoderPreset"], "crf": v.get("crf"), "videoBitrate": v.get("bitrate"),
                "maxBitrate": v.get("maxBitrate")}
    args = ["-map", "0:v:0", "-map", "0:a?"] + video_args(v["codec"], settings)
    if v.get("maxSize"):
        L, S = max(v["maxSize"]), min(v["maxSize"])
        args += ["-vf", f"scale=w='if(gte(iw,ih),min({L},iw),min({S},iw))':h='if(gte(iw,ih),min({S},ih),min({L},ih))'"
                        ":force_original_aspect_ratio=decrease:force_divisible_by=2"]
    args += ["-pix_fmt", v.get("pixelFormat", "yuv420p")]
    args += audio_args(a["codec"], a["bitrate"]) + ["-ar", str(a["sampleRate"]), "-ac", str(a["channels"])]
    return args + container_args({"container": preset.get("defaultExtension", "mp4")})


def preset_entry(binary, name):
    """The tool's own reading of a preset (defaults filled in)."""
    listed = json.loads(subprocess.run([binary, "presets", "--json"], check=True, capture_output=True, text=True).stdout)
    entry = next((p for p in listed if p["name"] == name or name in p.get("aliases", [])), None)
    return entry or sys.exit(f"bench: {binary} has no preset {name!r}")


def quote(x):   # shell quoting that reads well: "scale=w='if(...)':..." rather than 'scale=w='"'"'if(...)...'
    return f'"{x}"' if "'" in x and not any(c in x for c in '"$`\\!') else shlex.quote(x)


def main(argv):
    if argv[:1] == ["plan"] and len(argv) in (4, 5):
        plan = started(argv[1], argv[2], argv[3])
        w, h, codec, args = plan_args(plan, argv[4] if len(argv) > 4 else None)
        print(w or "-", h or "-", codec, plan["container"])
        print("\n".join(args))
    elif argv[:1] == ["loop"] and len(argv) == 3:
        entry = preset_entry(argv[1], argv[2])
        print(" ".join(quote(x) for x in loop_args(entry)), entry.get("defaultExtension", "mp4"))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
