#!/usr/bin/env python3
"""Writes the Apple adjustment records (.AAE) of Fixtures/aae/, from what is known of Photos' formats (osxphotos,
real Photos files): python3's standard library only. Run from anywhere; the output is the same every time.

  trim.AAE              com.apple.video 1.0, XML: raw DEFLATE of {"adjustments":[Trim]}, as Photos 5 wrote it;
                        startTime 46059/90000 s = 0.51176666... s, endTime 248936/90000 s = 2.76595555... s
  slomo.AAE             com.apple.video.slomo 1.1, XML: adjustmentData is a binary plist, rate 0.125, one region
                        start 239/600 s = 0.39833333... s, duration 1114/600 s = 1.85666666... s
  photo-trim-mute.AAE   com.apple.photo 1.4 JSON envelope (formatVersion, metadata, versionInfo): Trim 900/600 s
                        = 1.5 s to 1680/600 s = 2.8 s, and Mute
  portrait.AAE          com.apple.photo 1.4 with PortraitVideo (Cinematic) only: kept by name, not rendered
  thirdparty.AAE        com.example.editor: opaque bytes
  binary-envelope.AAE   trim.AAE's record written as a binary plist envelope
  trim-past-end.AAE     Trim 1 s to 4.02 s (600 timescale): past a 4 s movie's end, as Photos may write it

Hostile records (each must give `undecodable` with a reason, quickly, and never crash):
  hostile-bomb.AAE          raw DEFLATE of 8 MB (JSON followed by spaces): past the 4 MB inflation bound
  hostile-truncated.AAE     trim.AAE's DEFLATE stream cut in half
  hostile-deep-json.AAE     raw DEFLATE of JSON nested 10 000 arrays deep
  hostile-cycle.AAE         slo-mo binary plist whose regions array contains itself

And one that is not hostile but takes the last branch before "opaque":
  zlib-wrapped.AAE      trim.AAE's JSON zlib-wrapped (header and Adler-32): decoded by the zlib fallback
"""
import datetime
import json
import os
import plistlib
import struct
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aae")
STAMP = datetime.datetime(2024, 5, 17, 10, 31, 2)


def deflate(data: bytes) -> bytes:
    """Raw DEFLATE (no zlib header), as Photos stores its JSON."""
    c = zlib.compressobj(level=9, wbits=-15)
    return c.compress(data) + c.flush()


def cmtime(value: int, timescale: int, flags: int = 1) -> dict:
    return {"value": value, "timescale": timescale, "flags": flags, "epoch": 0}


def compact(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def aae(identifier: str, version: str, data: bytes, editor: str = "com.apple.mobileslideshow", base: int = 0) -> dict:
    return {
        "adjustmentBaseVersion": base,
        "adjustmentData": data,
        "adjustmentEditorBundleID": editor,
        "adjustmentFormatIdentifier": identifier,
        "adjustmentFormatVersion": version,
        "adjustmentRenderTypes": 0,
        "adjustmentTimestamp": STAMP,
    }


def write(name: str, record: dict, fmt=plistlib.FMT_XML) -> None:
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(plistlib.dumps(record, fmt=fmt, sort_keys=True))


# The real Trim record (APPLE-EDITS.md), in the legacy com.apple.video 1.0 envelope.
TRIM = {"identifier": "Trim", "formatVersion": 1,
        "settings": {"startTime": cmtime(46059, 90000, 3), "endTime": cmtime(248936, 90000, 3)}}
TRIM_JSON = compact({"adjustments": [TRIM]})

# The slo-mo record: a binary plist, not deflated.
SLOMO = {"slowMotion": {"rate": 0.125,
                        "regions": [{"timeRange": {"start": cmtime(239, 600), "duration": cmtime(1114, 600)}}]}}


def cyclic_slomo_bplist() -> bytes:
    """{"slowMotion": {"rate": 0.125, "regions": A}} where A = [A]: plistlib cannot write a cycle, so by hand."""
    objects = [
        b"\xd1\x01\x02",                         # 0: dict {1: 2}            top
        b"\x5a" + b"slowMotion",                 # 1: "slowMotion"
        b"\xd2\x03\x04\x05\x06",                 # 2: dict {3: 5, 4: 6}
        b"\x54" + b"rate",                       # 3: "rate"
        b"\x57" + b"regions",                    # 4: "regions"
        b"\x23" + struct.pack(">d", 0.125),      # 5: 0.125
        b"\xa1\x06",                             # 6: array [6]: itself
    ]
    body = b"bplist00"
    offsets = []
    for o in objects:
        offsets.append(len(body))
        body += o
    table = len(body)
    body += bytes(offsets)  # 1-byte offsets
    body += struct.pack(">6xBBQQQ", 1, 1, len(objects), 0, table)
    return body


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    trim = aae("com.apple.video", "1.0", deflate(TRIM_JSON))
    write("trim.AAE", trim)
    write("binary-envelope.AAE", trim, fmt=plistlib.FMT_BINARY)
    # A trim whose end Photos wrote a little past the movie's end (4.02 s of a 4 s clip, on its 600 timescale): "to the end".
    past = {"identifier": "Trim", "formatVersion": 1,
            "settings": {"startTime": cmtime(600, 600, 1), "endTime": cmtime(2412, 600, 1)}}
    write("trim-past-end.AAE", aae("com.apple.video", "1.0", deflate(compact({"adjustments": [past]}))))
    write("slomo.AAE", aae("com.apple.video.slomo", "1.1", plistlib.dumps(SLOMO, fmt=plistlib.FMT_BINARY, sort_keys=True)))

    photo = {
        "formatVersion": 1,
        "metadata": {"masterWidth": 1920, "masterHeight": 1080, "orientation": 1},
        "versionInfo": {"buildNumber": "21A5248v", "appVersion": "9.0", "schemaRevision": 1, "platform": "iOS"},
        "adjustments": [
            {"identifier": "Trim", "formatVersion": 1,
             "settings": {"startTime": cmtime(900, 600), "endTime": cmtime(1680, 600)}},
            {"identifier": "Mute", "formatVersion": 1, "enabled": True, "settings": {}},
        ],
    }
    write("photo-trim-mute.AAE", aae("com.apple.photo", "1.4", deflate(compact(photo)), base=1))

    portrait = {
        "formatVersion": 1,
        "metadata": {"masterWidth": 1920, "masterHeight": 1080, "orientation": 1},
        "adjustments": [{"identifier": "PortraitVideo", "formatVersion": 1,
                         "settings": {"aperture": 2.8, "renderingVersion": 3}}],
    }
    write("portrait.AAE", aae("com.apple.photo", "1.4", deflate(compact(portrait)), base=1))

    write("thirdparty.AAE", aae("com.example.editor", "2.3", b"\x00opaque edit state\x01\x02\x03\xff",
                                editor="com.example.editor"))

    # Hostile records.
    bomb = compact({"adjustments": []}) + b" " * (8 << 20)
    write("hostile-bomb.AAE", aae("com.apple.photo", "1.4", deflate(bomb)))
    payload = deflate(TRIM_JSON)
    write("hostile-truncated.AAE", aae("com.apple.video", "1.0", payload[: len(payload) // 2]))
    write("hostile-deep-json.AAE", aae("com.apple.photo", "1.4", deflate(b"[" * 10_000 + b"]" * 10_000)))
    write("hostile-cycle.AAE", aae("com.apple.video.slomo", "1.1", cyclic_slomo_bplist()))
    write("zlib-wrapped.AAE", aae("com.apple.video", "1.0", zlib.compress(TRIM_JSON, 9)))


if __name__ == "__main__":
    main()
