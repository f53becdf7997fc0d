#!/usr/bin/env bash
# Installs mediaexport under PREFIX (default /usr/local):
#   PREFIX/bin/mediaexport                          the tool (a release build)
#   PREFIX/share/mediaexport/Presets/*.json         the built-in presets (found from the executable's real path)
#   PREFIX/share/man/man1/mediaexport.1             the man page, written by scripts/manpage.py from the tool itself
#   PREFIX/share/bash-completion/completions/mediaexport, PREFIX/share/zsh/site-functions/_mediaexport,
#   PREFIX/share/fish/vendor_completions.d/mediaexport.fish   shell completions (preset names after --preset)
#
#   bash scripts/install.sh [PREFIX]
#
# The binary comes from scripts/release-build.sh: `swift build -c release`, linked with the functions everyday
# commands run placed first (a list it makes with valgrind when the sources changed; without valgrind, a note and
# a plain link). Nothing else builds: the man page and the completions come from the installed binary
# (`--experimental-dump-help`, `--generate-completion-script`). On a built tree this takes seconds.
#
# Environment: MEDIAEXPORT_BIN=path installs that binary instead (the tests use the debug build); DESTDIR=dir
# stages the install under dir (scripts/package-deb.sh: DESTDIR=staging install.sh /usr; the man page names the
# final PREFIX); INSTALL_MAN=0 skips the man page; SWIFT_BUILD_FLAGS adds flags to the release build;
# HOT_FUNCTIONS=required fails without valgrind (release-build.sh). A release build links the Swift runtime and Foundation statically (Package.swift), so the binary
# runs without the Swift toolchain; it links FFmpeg 5.1's shared libraries (Debian 12).
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${1:-/usr/local}
case $PREFIX in /*) ;; *) PREFIX=$PWD/$PREFIX ;; esac
DESTDIR=${DESTDIR:-}
case $DESTDIR in ''|/*) ;; *) DESTDIR=$PWD/$DESTDIR ;; esac
ROOT=$DESTDIR$PREFIX

if [[ -n ${MEDIAEXPORT_BIN:-} ]]; then
    BIN=$MEDIAEXPORT_BIN
else
    BIN=$(bash scripts/release-build.sh)
fi
[[ -x $BIN ]] || { echo "install.sh: no executable at $BIN" >&2; exit 1; }

install -d "$ROOT/bin" "$ROOT/share/mediaexport/Presets" "$ROOT/share/man/man1" \
    "$ROOT/share/bash-completion/completions" "$ROOT/share/zsh/site-functions" "$ROOT/share/fish/vendor_completions.d"
install -m 0755 "$BIN" "$ROOT/bin/mediaexport"
# The presets folder holds exactly the built-ins: a file removed from the tree is removed from the install.
rm -f "$ROOT/share/mediaexport/Presets/"*.json
install -m 0644 Presets/*.json "$ROOT/share/mediaexport/Presets/"

# The completions and the man page come from the installed binary, which reads the installed presets (no user's).
tool() { env -u MEDIAEXPORT_PRESETS_DIR XDG_CONFIG_HOME=/nonexistent "$ROOT/bin/mediaexport" "$@"; }
if [[ ${INSTALL_MAN:-1} != 0 ]]; then
    python3 scripts/manpage.py "$ROOT/bin/mediaexport" --prefix "$PREFIX" >"$ROOT/share/man/man1/mediaexport.1.tmp" \
        || { rm -f "$ROOT/share/man/man1/mediaexport.1.tmp"; echo "install.sh: scripts/manpage.py failed" >&2; exit 1; }
    chmod 0644 "$ROOT/share/man/man1/mediaexport.1.tmp"
    mv "$ROOT/share/man/man1/mediaexport.1.tmp" "$ROOT/share/man/man1/mediaexport.1"
fi
# bash-completion sources the file: no #! line (Debian's lintian: bash-completion-with-hashbang).
# In each shell the default subcommand completes as `export` does: scripts/default-subcommand-completion.py.
tool --generate-completion-script bash | python3 scripts/default-subcommand-completion.py bash | sed '1{/^#!/d}' \
    >"$ROOT/share/bash-completion/completions/mediaexport"
tool --generate-completion-script zsh | python3 scripts/default-subcommand-completion.py zsh \
    >"$ROOT/share/zsh/site-functions/_mediaexport"
tool --generate-completion-script fish | python3 scripts/default-subcommand-completion.py fish \
    >"$ROOT/share/fish/vendor_completions.d/mediaexport.fish"
chmod 0644 "$ROOT/share/bash-completion/completions/mediaexport" "$ROOT/share/zsh/site-functions/_mediaexport" \
    "$ROOT/share/fish/vendor_completions.d/mediaexport.fish"

# The installed tool must find its presets from where it is, whatever the working directory.
(cd / && tool presets >/dev/null) || { echo "install.sh: the installed tool does not find its presets" >&2; exit 1; }
echo "installed mediaexport $(tool --version | awk 'NR == 1 {print $2}') in $ROOT"
