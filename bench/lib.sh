# shellcheck shell=bash
# Shared by bench/run.sh and bench/batch.sh (sourced; expects ROOT, die and note to be defined).

# Sets BIN to the mediaexport binary: $MEDIAEXPORT_BIN if given, else the release build of scripts/release-build.sh
# (the one the package ships: hot functions first), whose log goes to $1.
find_or_build_mediaexport() {
    local log=$1
    if [[ -n ${MEDIAEXPORT_BIN:-} ]]; then
        BIN=$MEDIAEXPORT_BIN
        [[ -x $BIN ]] || die "MEDIAEXPORT_BIN=$BIN is not an executable file"
        # An if, not `[[ ]] && ...`: as the function's last command, a false test would be its status (set -e).
        if [[ $BIN == */* && $BIN != /* ]]; then BIN=$PWD/$BIN; fi
    else
        command -v swift >/dev/null 2>&1 || die "swift not found; install a Swift toolchain or set MEDIAEXPORT_BIN"
        note "building: scripts/release-build.sh (log: ${log#"$ROOT"/}; waits if another build holds .build)"
        if ! BIN=$(bash "$ROOT/scripts/release-build.sh" 2>"$log"); then
            tail -n 25 "$log" >&2
            die "build failed; full log: $log"
        fi
        [[ -x $BIN ]] || die "build succeeded but $BIN is missing"
    fi
}
