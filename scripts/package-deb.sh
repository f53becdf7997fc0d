#!/usr/bin/env bash
# Builds dist/mediaexport_VERSION_amd64.deb for Debian 12 (bookworm) from the release build:
#   /usr/bin/mediaexport (stripped), /usr/share/mediaexport/Presets/*.json (found from the binary's real path),
#   /usr/share/man/man1/mediaexport.1.gz, completions for bash, zsh (vendor-completions) and fish,
#   /usr/share/doc/mediaexport/copyright and changelog.gz (lintian-clean).
# The tree is laid out by scripts/install.sh (DESTDIR=staging, PREFIX=/usr), whose release build
# (scripts/release-build.sh) places the functions everyday commands run first: the list is made here, with valgrind
# and ffmpeg (installed when missing), not kept in git. Depends: from dpkg-shlibdeps on the binary (FFmpeg 5.1's libav*/libsw*, libc6, zlib, SQLite,
# libstdc++), the FFmpeg ones raised to 5.1 (the tool needs exactly 5.1). VERSION is `mediaexport --version`.
# File times are the newest commit's (SOURCE_DATE_EPOCH), owners root: the same tree gives the same package.
#
#   bash scripts/package-deb.sh            # prints the .deb's path
#
# Environment: MEDIAEXPORT_BIN=path packages that binary instead of the release build (for trying the script).
# Needs dpkg-dev (dpkg-shlibdeps), python3, valgrind and ffmpeg; installs those missing of dpkg-dev, valgrind and
# ffmpeg (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for tool in dpkg-shlibdeps:dpkg-dev valgrind:valgrind ffmpeg:ffmpeg; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "package-deb.sh: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
ARCH=$(dpkg --print-architecture)
WORK=dist/build
STAGE=$WORK/debian/mediaexport
rm -rf "$WORK"
mkdir -p "$STAGE/DEBIAN"
[[ -n ${MEDIAEXPORT_BIN:-} ]] || export HOT_FUNCTIONS=required
DESTDIR=$STAGE bash scripts/install.sh /usr >&2
BIN=$STAGE/usr/bin/mediaexport
# As Debian ships binaries: without the symbol table (96 MB → 64 MB; Swift's metadata stays, so does the tool).
strip --strip-unneeded "$BIN"
VERSION=$("$BIN" --version | awk 'NR == 1 {print $2}')
[[ $VERSION =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || { echo "package-deb.sh: bad version '$VERSION' from $BIN --version" >&2; exit 1; }

# Debian's places: compressed man page, zsh's vendor-completions (in zsh's default fpath on Debian).
gzip -9n "$STAGE/usr/share/man/man1/mediaexport.1"
mkdir -p "$STAGE/usr/share/zsh/vendor-completions"
mv "$STAGE/usr/share/zsh/site-functions/_mediaexport" "$STAGE/usr/share/zsh/vendor-completions/_mediaexport"
rmdir "$STAGE/usr/share/zsh/site-functions"
install -d "$STAGE/usr/share/doc/mediaexport"
cat >"$STAGE/usr/share/doc/mediaexport/copyright" <<'COPYRIGHT'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: mediaexport
Comment: mediaexport's own code is under the MIT licence (LICENSE at the repository's root; Debian's name for it
 is Expat). The binary links statically the Swift runtime and Foundation (swift.org), swift-argument-parser,
 swift-log and GRDB.swift, and dynamically FFmpeg 5.1's libraries as Debian builds them (GPL-2+ with the GPL parts
 enabled, LGPL-2.1+ otherwise: their own packages and copyright files in /usr/share/doc/libav*), zlib (Zlib) and
 SQLite (public domain). The MIT licence is GPL-compatible: the binary may be distributed under the GPL's terms with
 those libraries.

Files: *
Copyright: 2026 the mediaexport authors
License: Expat
 MIT License.
 .
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
 documentation files (the "Software"), to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
 permit persons to whom the Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or substantial portions of
 the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
 WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
 COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
 OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.

Files: Swift runtime, Foundation, swift-argument-parser, swift-log (linked statically)
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime Library Exception
 On Debian systems, the full text of the Apache License 2.0 is in /usr/share/common-licenses/Apache-2.0.
 Runtime Library Exception: as an exception, if you use this Software to compile your source code and portions of
 this Software are embedded into the binary product as a result, you may redistribute such product without
 providing attribution as would otherwise be required by Sections 4(a), 4(b) and 4(d) of the License.

Files: GRDB.swift (linked statically)
Copyright: 2015-2025 Gwendal Roué
License: Expat
 Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
 documentation files (the "Software"), to deal in the Software without restriction, including without limitation
 the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to
 permit persons to whom the Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or substantial portions of
 the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
 WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT.
COPYRIGHT
chmod 0644 "$STAGE/usr/share/doc/mediaexport/copyright"
# A native package's changelog (Debian format, one entry: the commit it was built from).
EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
COMMIT=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
MAINTAINER="mediaexport maintainers <maintainers@users.noreply.a-seed-160b5879.example>"
printf 'mediaexport (%s) unstable; urgency=medium\n\n  * Built from commit %s by scripts/package-deb.sh.\n\n -- %s  %s\n' \
    "$VERSION" "$COMMIT" "$MAINTAINER" "$(LC_ALL=C date -u -R -d "@$EPOCH")" | gzip -9n >"$STAGE/usr/share/doc/mediaexport/changelog.gz"
chmod 0644 "$STAGE/usr/share/doc/mediaexport/changelog.gz"

# Depends: what the binary links, from the shlibs files of the installed libraries.
printf 'Source: mediaexport\n\nPackage: mediaexport\nArchitecture: %s\n' "$ARCH" >"$WORK/debian/control"
DEPENDS=$(cd "$WORK" && dpkg-shlibdeps -O -e "debian/mediaexport/usr/bin/mediaexport" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[[ $DEPENDS == *libavformat59* ]] || { echo "package-deb.sh: dpkg-shlibdeps found no FFmpeg dependency ('$DEPENDS')" >&2; exit 1; }
DEPENDS=$(sed -E 's/(lib(avcodec|avformat|avfilter|avutil|swscale|swresample)[0-9]+) \(>= 7:5\.[0-9]+\)/\1 (>= 7:5.1)/g' <<<"$DEPENDS")
rm "$WORK/debian/control"

cat >"$STAGE/DEBIAN/control" <<CONTROL
Package: mediaexport
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
Depends: $DEPENDS
Section: video
Priority: optional
Description: export video and audio with presets, on FFmpeg's libraries
 mediaexport exports media files with presets modelled on AVAssetExportSession's
 (highest, 1280x720, hevc-highest, passthrough, m4a ...): one file (export), a
 folder, resumable and shardable (batch), thumbnails, probe, and CI regression
 (regress). Every output is verified and appears only complete.
 License: MIT (Expat); see /usr/share/doc/mediaexport/copyright.
CONTROL

find "$STAGE" -depth -exec touch -h -d "@$EPOCH" {} +
DEB=dist/mediaexport_${VERSION}_${ARCH}.deb
SOURCE_DATE_EPOCH=$EPOCH dpkg-deb --root-owner-group -Zxz --build "$STAGE" "$DEB" >&2
echo "$DEB"
