#!/usr/bin/env python3
"""Completes the default subcommand: `mediaexport --preset h<TAB>` and `mediaexport IMG<TAB>` as after `export`.

ArgumentParser's generated scripts offer only the subcommands' names when the first word is not one of them.
This filter (stdin → stdout: the script generated for the shell named, bash when none is) makes them complete as
after `export` — its options, their values (presets) and files — and still offer the subcommand names while the
first word is typed and is not an option:

    mediaexport --generate-completion-script zsh | python3 scripts/default-subcommand-completion.py zsh

A script of another shape is passed through unchanged and the filter exits 1, so that a changed generator is seen.
"""
import re
import sys


def bash(script):
    pattern = re.compile(
        r"(    \*\)\n        # Offer subcommand completions\n"
        r"        COMPREPLY\+=\(\$\(compgen -W '([^']*)' -- \"\$\{cur\}\"\)\)\n        ;;\n)")
    match = pattern.search(script)
    if not match:
        return None
    names = match.group(2)
    replacement = (
        "    *)\n"
        "        # The default subcommand, export: its options, their values and files; the subcommands' names while\n"
        "        # the first word is typed.\n"
        f"        [[ ${{COMP_CWORD}} -le 1 && \"${{cur}}\" != -* ]] && COMPREPLY+=($(compgen -W '{names}' -- \"${{cur}}\"))\n"
        "        unparsed_words=(\"${COMP_WORDS[@]:1:${COMP_CWORD}}\")\n"
        "        _mediaexport_export\n"
        "        ;;\n")
    return script[:match.start()] + replacement + script[match.end():]


def zsh(script):
    # The top-level function, `_mediaexport() { … }`: the subcommands' names ('name:description' lines), its start.
    top = re.search(r"^_mediaexport\(\) \{\n.*?^\}\n", script, re.M | re.S)
    listing = top and re.search(r"        local -ar subcommands=\(\n((?:            '[^:']+:.*\n)+)        \)\n", top[0])
    start = "    unsetopt aliases banghist\n"
    command = "        _describe -V subcommand subcommands && ret=0\n"
    if not listing or top[0].count(start) != 1 or top[0].count(command) != 1 or "_mediaexport_export()" not in script:
        return None
    names = " ".join(re.findall(r"^            '([^:']+):", listing[1], re.M))
    dispatch = (
        start +
        "\n"
        "    # The default subcommand, export: a first word that names no subcommand, or an option as the first word,\n"
        "    # completes as after `export` (scripts/default-subcommand-completion.py).\n"
        f"    local -ar default_subcommand_names=({names})\n"
        "    if (( ! ${default_subcommand_names[(Ie)${words[2]}]} )) && { (( CURRENT > 2 )) || [[ ${words[2]} == -* ]] }; then\n"
        "        words=(\"${words[1]}\" export \"${words[@]:1}\")\n"
        "        (( CURRENT++ ))\n"
        "    fi\n")
    # While a first word that is no option is typed: the subcommands' names, and what `export` offers there (files).
    names_and_files = (
        command +
        "        words[1]=export\n"
        "        _mediaexport_export && ret=0\n")
    patched = top[0].replace(start, dispatch).replace(command, names_and_files)
    return script[:top.start()] + patched + script[top.end():]


def fish(script):
    name_line = re.compile(
        r"^complete -c 'mediaexport' -n '__mediaexport_should_offer_completions_for_positional \"mediaexport\" -eq 1'"
        r" -fa '([^']+)'.*\n", re.M)
    names = name_line.findall(script)
    tokens = "    set -l unparsed_tokens (__mediaexport_tokens -pc)\n"
    if not names or script.count(tokens) != 1 or "\"mediaexport export\"" not in script:
        return None
    dispatch = (
        tokens +
        "    # The default subcommand, export: a first word that names no subcommand, or an option as the first word,\n"
        "    # completes as after `export` (scripts/default-subcommand-completion.py).\n"
        f"    if not contains -- \"$unparsed_tokens[2]\" {' '.join(names)}\n"
        "        if set -q unparsed_tokens[2]; or string match -q -- '-*' (__mediaexport_tokens -t)\n"
        "            set unparsed_tokens $unparsed_tokens[1] export $unparsed_tokens[2..]\n"
        "        end\n"
        "    end\n")
    # While a first word that is no option is typed: the subcommands' names, and what `export` offers there (files).
    last = list(name_line.finditer(script))[-1]
    files = ("complete -c 'mediaexport' -n '__mediaexport_should_offer_completions_for_positional \"mediaexport\" -eq 1'"
             " -F\n")
    script = script[:last.end()] + files + script[last.end():]
    return script.replace(tokens, dispatch)


shells = {"bash": bash, "zsh": zsh, "fish": fish}
shell = sys.argv[1] if len(sys.argv) > 1 else "bash"
if shell not in shells:
    sys.exit(f"default-subcommand-completion.py: no shell '{shell}' (bash, zsh or fish)")
script = sys.stdin.read()
patched = shells[shell](script)
sys.stdout.write(patched if patched is not None else script)
sys.exit(0 if patched is not None else 1)
