#!/usr/bin/env bash
# Installs mediaexport under PREFIX (default /usr/local):
#   PREFIX/bin/mediaexport                          the tool (a release build)
#   PREFIX/share/mediaexport/Presets/*.json         the built-in presets (found from the executable's real path)
#   PREFIX/share/man/man1/mediaexport.1             the man page, generated from the command definitions
#   PREFIX/share/bash-completion/completions/mediaexport, PREFIX/share/zsh/site-functions/_mediaexport,
#   PREFIX/share/fish/vendor_completions.d/mediaexport.fish   shell completions
#
#   bash scripts/install.sh [PREFIX]
#
# Environment: MEDIAEXPORT_BIN=path installs that binary instead of building one (the tests use the debug build);
# INSTALL_MAN=0 skips the man page (it needs SwiftPM's generate-manual plugin, which builds the tool once more);
# SWIFT_BUILD_FLAGS adds flags to the release build. A release build links the Swift runtime and Foundation
# statically (Package.swift), so the binary runs without the Swift toolchain; it links FFmpeg 5.1's shared libraries
# (Debian 12).
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${1:-/usr/local}
case $PREFIX in /*) ;; *) PREFIX=$PWD/$PREFIX ;; esac

if [[ -n ${MEDIAEXPORT_BIN:-} ]]; then
    BIN=$MEDIAEXPORT_BIN
else
    # shellcheck disable=SC2086
    swift build -c release ${SWIFT_BUILD_FLAGS:-}
    BIN=$(swift build -c release --show-bin-path)/mediaexport
fi
[[ -x $BIN ]] || { echo "install.sh: no executable at $BIN" >&2; exit 1; }

install -d "$PREFIX/bin" "$PREFIX/share/mediaexport/Presets" "$PREFIX/share/man/man1" \
    "$PREFIX/share/bash-completion/completions" "$PREFIX/share/zsh/site-functions" "$PREFIX/share/fish/vendor_completions.d"
install -m 0755 "$BIN" "$PREFIX/bin/mediaexport"
# The presets folder holds exactly the built-ins: a file removed from the tree is removed from the install.
rm -f "$PREFIX/share/mediaexport/Presets/"*.json
install -m 0644 Presets/*.json "$PREFIX/share/mediaexport/Presets/"

if [[ ${INSTALL_MAN:-1} != 0 ]]; then
    config=release
    [[ -n ${MEDIAEXPORT_BIN:-} ]] && config=debug
    swift package plugin generate-manual --configuration "$config" >/dev/null
    install -m 0644 .build/plugins/GenerateManual/outputs/mediaexport/mediaexport.1 "$PREFIX/share/man/man1/mediaexport.1"
fi

"$PREFIX/bin/mediaexport" --generate-completion-script bash >"$PREFIX/share/bash-completion/completions/mediaexport"
"$PREFIX/bin/mediaexport" --generate-completion-script zsh >"$PREFIX/share/zsh/site-functions/_mediaexport"
"$PREFIX/bin/mediaexport" --generate-completion-script fish >"$PREFIX/share/fish/vendor_completions.d/mediaexport.fish"

# The installed tool must find its presets from where it is, whatever the working directory.
(cd / && "$PREFIX/bin/mediaexport" presets >/dev/null) || { echo "install.sh: the installed tool does not find its presets" >&2; exit 1; }
echo "installed mediaexport $("$PREFIX/bin/mediaexport" --version | head -1 | awk '{print $2}') in $PREFIX"
