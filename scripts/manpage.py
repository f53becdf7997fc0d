#!/usr/bin/env python3
"""Writes mediaexport(1), a man(7) page, from the tool itself and the README, without building anything.

    python3 scripts/manpage.py BIN [--prefix PREFIX] [--date YYYY-MM-DD] > mediaexport.1

- NAME, SYNOPSIS, DESCRIPTION, COMMANDS (each subcommand, its arguments and options): from
  `BIN --experimental-dump-help` (the command definitions the binary was built from).
- EXIT STATUS: the README's "Exit codes" table, the one source of truth; every code in
  Sources/mediaexport/Rendering/ExitStatus.swift must be in it (checked here: the page is not written otherwise).
- ENVIRONMENT, FILES, EXAMPLES, SEE ALSO: written below; FILES names PREFIX/share/mediaexport/Presets.

The page has no blank lines and no raw non-ASCII bytes (each is a \\[uXXXX] escape, so `±` and `≤` survive any
locale), so `man -l --warnings` and `groff -ww -man -z` print nothing. The date is the newest commit's (or --date,
or SOURCE_DATE_EPOCH): the same tree gives the same bytes.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ENVIRONMENT = [
    ("MEDIAEXPORT_PRESETS_DIR", "A folder of user presets (*.json), read before the user's configuration folder. "
     "User presets add to the built-ins; one that takes a built-in's name or alias is left out with a note."),
    ("XDG_CONFIG_HOME", "User presets are read from `$XDG_CONFIG_HOME/mediaexport/presets` (when it is an absolute path)."),
    ("HOME", "Without XDG_CONFIG_HOME, user presets are read from `~/.config/mediaexport/presets`."),
    ("JOB_COMPLETION_INDEX", "`batch --shard auto`: the shard index of a Kubernetes Indexed Job (the count from `--shard-count`)."),
    ("SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP, SLURM_ARRAY_TASK_COUNT",
     "`batch --shard auto` in a Slurm job array: shard (ID - MIN) / STEP of COUNT (or `--shard-count`)."),
    ("AWS_BATCH_JOB_ARRAY_INDEX", "`batch --shard auto` in an AWS Batch array job (the count from `--shard-count`)."),
    ("TERM", "`dumb`: progress as lines instead of a bar, also on a terminal."),
    ("COLUMNS", "The width of the progress bar when the terminal does not tell it."),
]

EXAMPLES = [
    ("Export a phone video for the web with the default preset:", "mediaexport --preset highest in.mov out.mp4"),
    ("A 720p clip from 5 s to 15 s:", "mediaexport --preset 1280x720 --start 5 --end 15 clip.mov part.mp4"),
    ("Export a folder, resumable, four at a time:", "mediaexport batch ~/Videos --out ready/ --preset 1280x720 --jobs 4"),
    ("What a file holds, as JSON:", "mediaexport probe --json in.mov"),
    ("The presets, built-in and your own:", "mediaexport presets"),
]


def esc(text):
    """Text for a man page line: backslashes, hyphens, non-ASCII as escapes; `code` in bold."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    text = re.sub(r"`([^`]+)`", r"\\fB\1\\fR", text)
    return "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in text)


def line(text):
    """One input line: never blank, never starting with a control character."""
    text = text.strip()
    return "\\&" + text if text[:1] in (".", "'") else text


def paragraphs(text):
    """A discussion: filled paragraphs, and indented lines (examples) kept as they are."""
    out = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.split("\n")
        if len(lines) > 1 and all(l.startswith("  ") for l in lines[1:]) and lines[0].rstrip().endswith(":"):
            out += [".PP", line(esc(lines[0])), ".RS 4", ".nf"] + [line(esc(l)) for l in lines[1:]] + [".fi", ".RE"]
        elif all(l.startswith("  ") for l in lines):
            out += [".PP", ".RS 4", ".nf"] + [line(esc(l)) for l in lines] + [".fi", ".RE"]
        else:
            out += [".PP", line(esc(" ".join(l.strip() for l in lines)))]
    return out


def name_of(n):
    return {"long": "--", "short": "-", "longWithSingleDash": "-"}[n["kind"]] + n["name"]


def argument(a):
    """A .TP entry for one option, flag or positional argument."""
    value = "\\fI<%s>\\fR" % esc(a.get("valueName", "value"))
    if a["kind"] == "positional":
        head = "\\fI<%s>\\fR" % esc(a.get("valueName", "value")) + ("\\ ..." if a.get("isRepeating") else "")
    else:
        names = sorted(a.get("names", []), key=lambda n: n["kind"] == "short")
        head = ", ".join("\\fB%s\\fR" % esc(name_of(n)) for n in names)
        if a["kind"] == "option":
            head += " " + value
    body = a.get("abstract", "")
    if a.get("allValues") and a["kind"] == "option":
        body += " (values: %s)" % ", ".join(a["allValues"])
    if a.get("defaultValue") not in (None, "") and a["kind"] != "flag":
        body += " (default: %s)" % a["defaultValue"]
    if a.get("isRepeating") and a["kind"] == "option":
        body += " (repeatable)"
    return [".TP", line(head), line(esc(body.strip()) or "\\&")]


def usage(cmd, path):
    args = [a for a in cmd.get("arguments", []) if a.get("shouldDisplay", True)]
    words = ["\\fB%s\\fR" % esc(" ".join(path))]
    if any(a["kind"] != "positional" for a in args):
        words.append("[\\fIoptions\\fR]")
    for a in args:
        if a["kind"] == "positional":
            w = "\\fI<%s>\\fR" % esc(a.get("valueName", "value")) + ("\\ ..." if a.get("isRepeating") else "")
            words.append("[%s]" % w if a.get("isOptional") else w)
    if cmd.get("subcommands"):
        words.append("\\fIsubcommand\\fR")
    return " ".join(words)


def visible(cmd):
    return [s for s in cmd.get("subcommands", []) if s.get("shouldDisplay", True) and s["commandName"] != "help"]


def leaves(cmd, path):
    """The commands one runs (report merge, not report), each as its path of commands."""
    subs = visible(cmd)
    if not subs:
        return [path]
    return sum((leaves(s, path + [s]) for s in subs), [])


def command(cmd, path):
    """The COMMANDS entry of one subcommand (and its own subcommands)."""
    out = [".SS %s" % esc(" ".join(path[1:])), ".PP", line(usage(cmd, path))]
    if cmd.get("abstract"):
        out += [".PP", line(esc(cmd["abstract"]))]
    out += paragraphs(cmd.get("discussion", "")) if cmd.get("discussion") else []
    for a in cmd.get("arguments", []):
        # --help and --version: once, under OPTIONS.
        if a.get("shouldDisplay", True) and not any(n["name"] in ("help", "version") for n in a.get("names", [])):
            out += argument(a)
    for sub in visible(cmd):
        out += command(sub, path + [sub["commandName"]])
    return out


def exit_codes(readme, exit_status_swift):
    """The README's exit-code table as (code, meaning) rows; fails if ExitStatus.swift has a code it lacks."""
    text = open(readme, encoding="utf-8").read()
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = [(m.group(1), m.group(2).strip()) for m in re.finditer(r"^\| (\d+) \| (.*) \|\s*$", section, re.M)]
    if not rows:
        sys.exit("manpage.py: no exit-code table under '## Exit codes' in %s" % readme)
    if os.path.exists(exit_status_swift):
        coded = set(re.findall(r"static let \w+: Int32 = (\d+)", open(exit_status_swift, encoding="utf-8").read()))
        missing = sorted(coded - {c for c, _ in rows}, key=int)
        if missing:
            sys.exit("manpage.py: exit codes %s of %s are not in the README's table" % (", ".join(missing), exit_status_swift))
    # Markdown links become their text.
    return [(c, re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", m)) for c, m in rows]


def page_date(given):
    if given:
        return given
    if os.environ.get("SOURCE_DATE_EPOCH"):
        stamp = int(os.environ["SOURCE_DATE_EPOCH"])
    else:
        try:
            stamp = int(subprocess.run(["git", "-C", ROOT, "log", "-1", "--format=%ct"], capture_output=True,
                                       text=True, check=True).stdout.strip())
        except (OSError, subprocess.CalledProcessError, ValueError):
            stamp = 0
    return datetime.datetime.fromtimestamp(stamp, datetime.timezone.utc).strftime("%Y-%m-%d")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("binary")
    p.add_argument("--prefix", default="/usr/local")
    p.add_argument("--date")
    p.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    p.add_argument("--exit-status", default=os.path.join(ROOT, "Sources/mediaexport/Rendering/ExitStatus.swift"))
    o = p.parse_args()
    dump = json.loads(subprocess.run([o.binary, "--experimental-dump-help"], capture_output=True, text=True, check=True).stdout)
    version = subprocess.run([o.binary, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    root = dump["command"]
    out = ['.\\" Generated by scripts/manpage.py from `mediaexport --experimental-dump-help` and README.md.',
           '.TH MEDIAEXPORT 1 "%s" "mediaexport %s" "User Commands"' % (page_date(o.date), esc(version)), ".nh",
           ".SH NAME", "mediaexport \\- %s" % esc(root.get("abstract", "")), ".SH SYNOPSIS"]
    for i, path in enumerate(leaves(root, [root])):
        out += ([] if i == 0 else [".br"]) + [line(usage(path[-1], [c["commandName"] for c in path]))]
    out += [".br", "\\fBmediaexport\\fR \\fB\\-\\-version\\fR | \\fB\\-\\-help\\fR | \\fBhelp\\fR [\\fIsubcommand\\fR]",
            ".SH DESCRIPTION", ".PP",
            line(esc("Without a subcommand, `mediaexport` runs `export`. `mediaexport help SUBCOMMAND` or "
                     "`mediaexport SUBCOMMAND --help` shows the options of one subcommand."))]
    out += paragraphs(root.get("discussion", "")) if root.get("discussion") else []
    out += [".SH OPTIONS"] + sum((argument(a) for a in root.get("arguments", []) if a.get("shouldDisplay", True)), [])
    out += [".SH COMMANDS"]
    for sub in visible(root):
        out += command(sub, ["mediaexport", sub["commandName"]])
    out += [".SH EXIT STATUS"]
    for code, meaning in exit_codes(o.readme, o.exit_status):
        out += [".TP", "\\fB%s\\fR" % code, line(esc(meaning))]
    out += [".SH ENVIRONMENT"]
    for name, what in ENVIRONMENT:
        out += [".TP", "\\fB%s\\fR" % esc(name), line(esc(what))]
    presets = o.prefix.rstrip("/") + "/share/mediaexport/Presets"
    out += [".SH FILES",
            ".TP", "\\fI%s\\fR" % esc(presets),
            line(esc("The built-in presets, found from the executable's real path (`../share/mediaexport/Presets` "
                     "beside its `bin/` folder), never from the current folder.")),
            ".TP", "\\fI~/.config/mediaexport/presets/*.json\\fR",
            line(esc("User presets (or `$XDG_CONFIG_HOME/mediaexport/presets`, and `$MEDIAEXPORT_PRESETS_DIR`).")),
            ".TP", "\\fIDIR/.mediaexport.sqlite\\fR, \\fIDIR/.mediaexport.lock\\fR",
            line(esc("`batch`: the resume state and the lock of the output folder DIR; a shard's are "
                     "`.mediaexport.shard-K-of-N.sqlite` and `.mediaexport.shard-K-of-N.lock`.")),
            ".TP", "\\fI.NAME.mediaexport\\-tmp\\-PID\\-TOKEN\\fR",
            line(esc("The hidden temporary file an output is written to, beside it, until it is renamed complete."))]
    out += [".SH EXAMPLES"]
    for what, cmd in EXAMPLES:
        out += [".PP", line(esc(what)), ".RS 4", ".nf", line(esc(cmd)), ".fi", ".RE"]
    out += [".SH SEE ALSO", "\\fBffmpeg\\fR(1), \\fBffprobe\\fR(1), \\fBHandBrakeCLI\\fR(1);",
            "the project's README and \\fIdocs/\\fR folder."]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
