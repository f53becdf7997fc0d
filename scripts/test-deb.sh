#!/usr/bin/env bash
# CI (after scripts/test.sh and scripts/test-slurm.sh; root): the Debian package end to end.
#   1. scripts/package-deb.sh builds dist/mediaexport_VERSION_amd64.deb (reusing the release build);
#   2. `apt-get install -y ./dist/….deb` installs it;
#   3. /usr/bin/mediaexport runs, finds its presets in /usr/share/mediaexport/Presets from `cd /`, exports a fixture;
#      `man -w mediaexport` finds the page, which lists exit status 65 and MEDIAEXPORT_PRESETS_DIR and renders
#      without a warning; the bash completion offers every built-in preset after --preset; bash, zsh and fish
#      complete the default subcommand (`mediaexport --preset hi<TAB>`) as after `export`;
#   4. `dpkg -r mediaexport` removes it, and no file or folder of `dpkg -L mediaexport` is left.
# Refuses (exit 2, touching nothing) when a mediaexport package is installed, or /usr/bin/mediaexport or
# /usr/share/mediaexport exist without one: it never replaces what it did not install. A failure after the install
# removes the package again. Prints each step's time.
#
#   bash scripts/test-deb.sh
set -euo pipefail
# (No `| grep -q` under pipefail: grep -q leaves early, the writer gets SIGPIPE and the pipeline fails.)
cd "$(dirname "$0")/.."
ROOT=$PWD
fail() { echo "test-deb.sh: FAIL: $*" >&2; exit 1; }
refuse() { echo "test-deb.sh: refused: $*" >&2; exit 2; }
step() { local now; now=$(date +%s); [[ -n ${T:-} ]] && echo "test-deb.sh: $LAST: $((now - T)) s"; T=$now; LAST=$1; }

[[ $(id -u) == 0 ]] || refuse "needs root (apt-get install, dpkg -r)"
status=$(dpkg-query -W -f='${db:Status-Status}' mediaexport 2>/dev/null || true)
[[ -z $status || $status == not-installed ]] || refuse "a mediaexport package is installed ($status): remove it first (dpkg -r mediaexport)"
for path in /usr/bin/mediaexport /usr/share/mediaexport; do
    [[ ! -e $path ]] || refuse "$path exists and belongs to no mediaexport package (an install.sh into /usr?): remove it first"
done
if grep -qs 'path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
    refuse "dpkg is configured to leave out /usr/share/man (/etc/dpkg/dpkg.cfg.d): the man page cannot be checked"
fi

# What the checks use (a CI image may lack man-db): installed when missing.
need=()
for p in man-db groff-base dpkg-dev python3 ffmpeg; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || need+=("$p")
done
if [[ ${#need[@]} -gt 0 ]]; then
    echo "test-deb.sh: installing ${need[*]}" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

step "package (scripts/package-deb.sh)"
DEB=$(bash scripts/package-deb.sh | tail -1)
[[ -f $DEB ]] || fail "package-deb.sh made no package ($DEB)"
echo "test-deb.sh: $DEB ($(du -h "$DEB" | cut -f1)): $(dpkg-deb -f "$DEB" Depends)"
dpkg-deb -I "$DEB" | grep -q "License: MIT" || fail "dpkg -I $DEB names no licence"
if command -v lintian >/dev/null; then   # when installed (not in CI's image): errors and warnings fail
    tags=$(lintian --fail-on error,warning "$DEB" 2>&1) || fail "lintian $DEB: $tags"
fi

# The package's paths, and which of them the machine had before (folders such as /usr/share/man/man1 stay after).
mapfile -t PATHS < <(dpkg-deb -c "$DEB" | awk '{print $6}' | sed -e 's|^\.||' -e 's|/$||' | grep .)
declare -A BEFORE=()
for path in "${PATHS[@]}"; do if [[ -e $path ]]; then BEFORE[$path]=1; fi; done

step "apt-get install"
installed=0
# (An `if`, not `[[ … ]] &&`: an EXIT trap's last status becomes the script's, and a false test would fail a pass.)
cleanup() { if [[ $installed == 1 ]]; then echo "test-deb.sh: removing the package after a failure" >&2; dpkg -r mediaexport >/dev/null || true; fi; }
trap cleanup EXIT
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "./$DEB" >/dev/null || fail "apt-get install ./$DEB"
[[ $(dpkg-query -W -f='${db:Status-Status}' mediaexport) == installed ]] || fail "dpkg does not list mediaexport as installed"
mapfile -t FILES < <(dpkg -L mediaexport | grep -vx '/\.')
[[ $(printf '%s\n' "${FILES[@]}" | sort) == $(printf '%s\n' "${PATHS[@]}" | sort) ]] || fail "dpkg -L mediaexport is not the package's contents"

step "checks of the installed package"
BIN=/usr/bin/mediaexport
[[ $(dpkg -S "$BIN" | cut -d: -f1) == mediaexport ]] || fail "$BIN is not the package's"
"$BIN" --version | grep "^mediaexport $(dpkg-query -W -f='${Version}' mediaexport)\$" >/dev/null || fail "$BIN --version is not the package's version"
# Its presets come from /usr/share/mediaexport/Presets: a preset put there (and taken away again) is listed.
probe_preset=/usr/share/mediaexport/Presets/zz-test-deb.json
printf '{"name":"test-deb-only","passthrough":true}\n' >"$probe_preset"
listed=$(cd / && env -u MEDIAEXPORT_PRESETS_DIR "$BIN" presets) || { rm -f "$probe_preset"; fail "$BIN presets (from /)"; }
rm -f "$probe_preset"
grep -q '^test-deb-only ' <<<"$listed" && grep -q '^highest ' <<<"$listed" || fail "$BIN does not read /usr/share/mediaexport/Presets: $listed"
work=$(mktemp -d)
(cd / && "$BIN" --preset low -q "$ROOT/Fixtures/landscape.mov" "$work/out.mp4" >/dev/null) || fail "$BIN --preset low Fixtures/landscape.mov"
ffprobe -v error -show_entries stream=codec_name -of csv=p=0 "$work/out.mp4" | grep -x h264 >/dev/null || fail "the installed tool's export has no h264 stream"
rm -rf "$work"
page=$(man -w mediaexport) || fail "man -w mediaexport finds no page"
[[ $page == /usr/share/man/man1/mediaexport.1.gz ]] || fail "man -w mediaexport gives $page, not the package's page"
text=$(MANWIDTH=80 man --warnings mediaexport 2>"$ROOT/dist/man-warnings.txt") || fail "man mediaexport"
[[ ! -s $ROOT/dist/man-warnings.txt ]] || fail "man mediaexport warns: $(head -5 "$ROOT/dist/man-warnings.txt")"
signs=()   # the help's ± (regress's tolerances) must survive into the page
"$BIN" --experimental-dump-help | grep "±" >/dev/null && signs=("±")
for want in "EXIT STATUS" "65" "MEDIAEXPORT_PRESETS_DIR" "ENVIRONMENT" "FILES" "EXAMPLES" "/usr/share/mediaexport/Presets" "${signs[@]}"; do
    grep -qF -- "$want" <<<"$text" || fail "the man page has no '$want'"
done
completion=/usr/share/bash-completion/completions/mediaexport
for json in /usr/share/mediaexport/Presets/*.json; do
    name=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$json")
    grep -qw -- "$name" "$completion" || fail "the bash completion does not offer preset '$name'"
done
# As bash runs it (complete -F _mediaexport: COMP_WORDS, then command, current word, previous word).
complete_line() {
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
             _mediaexport "$1" "${@: -1}" "${@: -2:1}" 2>/dev/null; echo "${COMPREPLY[*]}"' _ "$completion" "$@"
}
offered=$(complete_line mediaexport export --preset hi)
[[ $offered == highest ]] || fail "bash completes 'mediaexport export --preset hi' to '$offered', not highest"
offered=$(cd "$ROOT/Fixtures" && complete_line mediaexport export landsc)
[[ $offered == landscape.mov ]] || fail "bash completes the input 'landsc' to '$offered', not landscape.mov"
# The default subcommand (export) completes as after `export`.
offered=$(complete_line mediaexport --preset hi)
[[ $offered == highest ]] || fail "bash completes 'mediaexport --preset hi' to '$offered', not highest"
offered=$(cd "$ROOT/Fixtures" && complete_line mediaexport landsc)
[[ $offered == landscape.mov ]] || fail "bash completes 'mediaexport landsc' to '$offered', not landscape.mov"
for script in /usr/share/zsh/vendor-completions/_mediaexport /usr/share/fish/vendor_completions.d/mediaexport.fish; do
    grep -qw hevc-highest "$script" || fail "$script is missing or offers no preset names"
done
# Where the shells are installed (scripts/install-deps.sh installs both): zsh loads its script and completes as at a
# prompt (scripts/complete-zsh.zsh), fish as it would (complete -C); with `export` and without it (the default).
if command -v zsh >/dev/null; then
    zsh -n /usr/share/zsh/vendor-completions/_mediaexport || fail "zsh cannot parse _mediaexport"
    zsh -f -c 'autoload -U compinit; compinit -u -D; source /usr/share/zsh/vendor-completions/_mediaexport' \
        || fail "zsh cannot load _mediaexport"
    zsh_complete() { (cd "$ROOT/Fixtures" && zsh "$ROOT/scripts/complete-zsh.zsh" /usr/share/zsh/vendor-completions "$1"); }
    offered=$(zsh_complete "mediaexport export --preset hevc-hi")
    [[ $offered == "mediaexport export --preset hevc-highest" ]] || fail "zsh completes 'export --preset hevc-hi' to '$offered'"
    offered=$(zsh_complete "mediaexport --preset hi")
    [[ $offered == "mediaexport --preset highest" ]] || fail "zsh completes 'mediaexport --preset hi' to '$offered'"
    offered=$(zsh_complete "mediaexport landsc")
    [[ $offered == "mediaexport landscape.mov" ]] || fail "zsh completes 'mediaexport landsc' to '$offered'"
fi
if command -v fish >/dev/null; then
    offered=$(fish -c 'complete -C "mediaexport export --preset hevc-hi"' | cut -f1)
    [[ $offered == hevc-highest ]] || fail "fish completes 'mediaexport export --preset hevc-hi' to '$offered'"
    offered=$(fish -c 'complete -C "mediaexport --preset hi"' | cut -f1)
    [[ $offered == highest ]] || fail "fish completes 'mediaexport --preset hi' to '$offered', not highest"
    offered=$(cd Fixtures && fish -c 'complete -C "mediaexport landsc"' | cut -f1)
    [[ $offered == landscape.mov ]] || fail "fish completes 'mediaexport landsc' to '$offered', not landscape.mov"
fi
[[ -f /usr/share/doc/mediaexport/copyright ]] || fail "no /usr/share/doc/mediaexport/copyright"
grep -q '^License: Expat' /usr/share/doc/mediaexport/copyright && grep -q 'MIT' /usr/share/doc/mediaexport/copyright \
    || fail "the copyright file does not name the MIT (Expat) licence"

step "dpkg -r"
dpkg -r mediaexport >/dev/null || fail "dpkg -r mediaexport"
installed=0
status=$(dpkg-query -W -f='${db:Status-Status}' mediaexport 2>/dev/null || true)
[[ -z $status || $status == not-installed ]] || fail "after dpkg -r, mediaexport is '$status'"
left=()
for path in "${FILES[@]}"; do
    # What was there before (/usr, /usr/share/man/man1 …) stays; everything the package brought must be gone.
    [[ -n ${BEFORE[$path]:-} ]] && continue
    if [[ -e $path || -L $path ]]; then left+=("$path"); fi
done
[[ ${#left[@]} == 0 ]] || fail "left after dpkg -r: ${left[*]}"
step done
echo "test-deb.sh: OK: ${#FILES[@]} paths installed from $DEB and removed"
