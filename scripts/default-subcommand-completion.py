#!/usr/bin/env python3
"""Completes the default subcommand: `mediaexport --preset h<TAB>` and `mediaexport IMG<TAB>` as after `export`.

ArgumentParser's generated bash script offers only the subcommands' names when the first word is not one of them.
This filter (stdin → stdout, the generated bash script) makes that branch complete as `_mediaexport_export` does —
its options, their values (presets) and files — and still offers the subcommand names while the first word is typed.
A script of another shape is passed through unchanged and the filter exits 1, so that a changed generator is seen.
"""
import re
import sys

script = sys.stdin.read()
pattern = re.compile(
    r"(    \*\)\n        # Offer subcommand completions\n        COMPREPLY\+=\(\$\(compgen -W '([^']*)' -- \"\$\{cur\}\"\)\)\n        ;;\n)")
match = pattern.search(script)
if not match:
    sys.stdout.write(script)
    sys.exit(1)
names = match.group(2)
replacement = (
    "    *)\n"
    "        # The default subcommand, export: its options, their values and files; the subcommands' names while the\n"
    "        # first word is typed.\n"
    f"        [[ ${{COMP_CWORD}} -le 1 && \"${{cur}}\" != -* ]] && COMPREPLY+=($(compgen -W '{names}' -- \"${{cur}}\"))\n"
    "        unparsed_words=(\"${COMP_WORDS[@]:1:${COMP_CWORD}}\")\n"
    "        _mediaexport_export\n"
    "        ;;\n")
sys.stdout.write(script[:match.start()] + replacement + script[match.end():])
