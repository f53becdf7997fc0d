#!/usr/bin/env bash
# A real Slurm job array over a fixture folder (issue 32): a single-node slurmctld + slurmd (and munged) inside a
# private network namespace, three tasks with IDs 1-3 running `mediaexport batch --shard auto` into ONE shared --out
# (each shard with its own database and lock there, .mediaexport.shard-K-of-3.sqlite/.lock), one task failing
# once midway and requeued (it resumes from its database), a merge step with --dependency=afterany; every asset
# must be exported exactly once.
#
#   bash scripts/test-slurm.sh            # the debug build (.build/debug/mediaexport)
#   MEDIAEXPORT_BIN=path bash scripts/test-slurm.sh
#
# Needs root (apt-get, unshare --net, the daemons). Installs Debian's slurm-wlm and munge (and iproute2, python3)
# when missing. Every daemon it starts is stopped by its PID; its temporary folder is removed. PASS or FAIL on the last line; the exit status is non-zero on failure.
set -euo pipefail
[ -z "${MEDIAEXPORT_BIN:-}" ] || MEDIAEXPORT_BIN=$(realpath "$MEDIAEXPORT_BIN")
cd "$(dirname "$0")/.."
ROOT=$PWD

fail() { echo "test-slurm: FAIL: $*" >&2; exit 1; }

if [ "${1:-}" != "--inside" ]; then
    BIN=${MEDIAEXPORT_BIN:-$ROOT/.build/debug/mediaexport}
    [ -x "$BIN" ] || fail "no mediaexport binary at $BIN (swift build first, or set MEDIAEXPORT_BIN)"
    [ "$(id -u)" = 0 ] || fail "needs root (apt-get, unshare --net, slurmd)"
    missing=()
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null || missing+=(slurm-wlm)
    command -v munged >/dev/null || missing+=(munge)
    command -v ip >/dev/null || missing+=(iproute2)
    command -v python3 >/dev/null || missing+=(python3)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "test-slurm: installing ${missing[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    [ -s /etc/munge/munge.key ] || { mungekey --create --keyfile=/etc/munge/munge.key && chown munge:munge /etc/munge/munge.key; }
    WORK=$(mktemp -d /tmp/mediaexport-slurm.XXXXXX)
    trap 'rm -rf "$WORK"' EXIT
    chmod 755 "$WORK"
    status=0
    MEDIAEXPORT_BIN=$(realpath "$BIN") WORK=$WORK timeout 280 unshare --net --fork --kill-child=SIGTERM -- bash "$ROOT/scripts/test-slurm.sh" --inside || status=$?
    if [ "$status" = 0 ]; then echo "test-slurm: PASS"; else echo "test-slurm: FAIL (status $status)"; fi
    exit "$status"
fi

# --- Inside the private network namespace: loopback plus an address Slurm's name lookups accept. ---
ip link set lo up
ip addr add 10.77.0.1/32 dev lo
PIDS=()
stop() {
    local status=$?
    [ -z "${JOB:-}" ] || scancel "$JOB" 2>/dev/null || true
    for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do kill "${PIDS[i]}" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    if [ "$status" != 0 ]; then
        echo "--- slurmctld.log (last lines)"; tail -n 20 "$WORK/log/slurmctld.log" 2>/dev/null || true
        echo "--- slurmd.log (last lines)"; tail -n 20 "$WORK/log/slurmd.log" 2>/dev/null || true
        for f in "$WORK"/jobs/*.out; do [ -e "$f" ] && { echo "--- $f"; cat "$f"; }; done
    fi
    exit "$status"
}
trap stop EXIT
trap 'exit 143' TERM INT

mkdir -p "$WORK"/{munge,state,spool,log,jobs,reports,in/sub}
chown munge:munge "$WORK/munge"; chmod 755 "$WORK/munge"
chown slurm:slurm "$WORK/state" "$WORK/log"

# The folder: six assets, two in a subfolder.
for f in colors.mp4 hevc.mp4 vfr.mp4; do cp "$ROOT/Fixtures/$f" "$WORK/in/"; done
cp "$ROOT/Fixtures/landscape.mov" "$ROOT/Fixtures/odd-322x242.mov" "$WORK/in/sub/"
cp "$ROOT/Fixtures/audio.m4a" "$WORK/in/song.m4a"
EXPECTED="colors.mp4 hevc.mp4 song.m4a sub/landscape.mov sub/odd-322x242.mov vfr.mp4"

SOCKET=$WORK/munge/munge.socket
setpriv --reuid=munge --regid=munge --init-groups munged -F --socket="$SOCKET" --key-file=/etc/munge/munge.key \
    --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/munge/munged.log" --seed-file="$WORK/munge/munged.seed" >"$WORK/munge/munged.out" 2>&1 &
PIDS+=($!)

export SLURM_CONF=$WORK/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=mediaexport-test
SlurmctldHost=$(hostname -s)(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
SlurmUser=slurm
SlurmdUser=root
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/state/slurmctld.pid
SlurmdPidFile=$WORK/spool/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
NodeName=$(hostname -s) NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
for _ in $(seq 50); do [ -S "$SOCKET" ] && break; sleep 0.1; done
[ -S "$SOCKET" ] || fail "munged did not start: $(cat "$WORK/munge/munged.log" 2>/dev/null)"
slurmctld -D >/dev/null 2>&1 &
PIDS+=($!)
slurmd -D >/dev/null 2>&1 &
PIDS+=($!)
for _ in $(seq 60); do [ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break; sleep 0.5; done
[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] || fail "the node is not idle: $(sinfo 2>&1)"
echo "test-slurm: slurmctld and slurmd up (node $(hostname -s) idle)"

# The array. Task 2's first attempt exports part of its shard (the assets named h*) and then fails; requeued,
# it resumes from its database: those assets are skipped as done, the rest exported.
cat >"$WORK/job.sh" <<'EOF'
#!/bin/bash
set -u
echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_COUNT (min $SLURM_ARRAY_TASK_MIN)"
run() {
    "$MEDIAEXPORT_BIN" batch "$WORK/in" --out "$WORK/out" --preset low --jobs 1 -q --shard auto "$@"
}
if [ "$SLURM_ARRAY_TASK_ID" = 2 ] && [ ! -e "$WORK/failed-once" ]; then
    touch "$WORK/failed-once"
    run --include 'h*' --report "$WORK/first-attempt-2.json"
    echo "task 2: failing once on purpose, after a part of its shard" >&2
    exit 3
fi
run --report "$WORK/reports/shard-$SLURM_ARRAY_TASK_ID.json"
EOF
cd "$WORK"
JOB=$(timeout 120 sbatch --parsable --wait --array=1-3 --output="$WORK/jobs/%A_%a.out" "$WORK/job.sh") && fail "the array passed although task 2 failed" || true
JOB=${JOB%%;*}
[ -n "$JOB" ] || fail "sbatch gave no job id"
state() { scontrol show job "${JOB}_$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1; }
[ "$(state 1)" = COMPLETED ] && [ "$(state 3)" = COMPLETED ] || fail "tasks 1 and 3: $(state 1), $(state 3)"
[ "$(state 2)" = FAILED ] || fail "task 2 should have failed once: $(state 2)"
echo "test-slurm: array $JOB ran; task 2 failed once, requeueing it"
scontrol requeue "${JOB}_2"
scontrol update jobid="${JOB}_2" StartTime=now

# The merge waits for every task (afterany: afterok is never satisfied after a requeue); it checks that every
# shard's report is there once (below: without task 2's it fails).
cat >"$WORK/merge.sh" <<'EOF'
#!/bin/bash
exec "$MEDIAEXPORT_BIN" report merge "$WORK"/reports/shard-*.json --out "$WORK/merged.json"
EOF
timeout 150 sbatch --wait --dependency=afterany:"$JOB" --output="$WORK/jobs/merge.out" "$WORK/merge.sh" >/dev/null \
    || fail "the merge step failed"
[ "$(state 2)" = COMPLETED ] || fail "requeued task 2: $(state 2)"
echo "test-slurm: requeued task 2 completed; merged: $(tail -n 1 "$WORK/jobs/merge.out")"

# Every asset exactly once: in the merged report (exported, or unchanged where task 2 resumed), in exactly one
# shard's report, one output file each.
python3 - "$WORK" "$EXPECTED" <<'EOF'
import json, os, sys
work, expected = sys.argv[1], sorted(sys.argv[2].split())
def rows(path): return json.load(open(path))["rows"]
merged = rows(f"{work}/merged.json")
keys = sorted(r["key"] for r in merged)
assert keys == expected, f"merged report keys {keys} != {expected}"
# Task 2's first attempt exported `first`; its requeued run skips them as done (the database) and exports the rest.
first = sorted(r["key"] for r in rows(f"{work}/first-attempt-2.json") if r["status"] == "exported")
assert first, "task 2's first attempt exported nothing: the resume is not tested (shard hash or fixture names changed?)"
done = lambda r: r["status"] == "exported" or (r["status"] == "unchanged" and r["key"] in first)
bad = [(r["key"], r["status"], r.get("error")) for r in merged if not done(r)]
assert not bad, f"not exported: {bad}"
resumed = sorted(r["key"] for r in rows(f"{work}/reports/shard-2.json") if r["status"] == "unchanged")
assert resumed == first, f"requeued task 2 skipped {resumed}, its first attempt exported {first}"
seen = {}
for task in (1, 2, 3):
    for r in rows(f"{work}/reports/shard-{task}.json"):
        seen.setdefault(r["key"], []).append(task)
twice = {k: t for k, t in seen.items() if len(t) != 1}
assert sorted(seen) == expected and not twice, f"shard reports: {seen}"
outputs = []
out = f"{work}/out"
for folder, _, files in os.walk(out):
    outputs += [os.path.relpath(os.path.join(folder, f), out) for f in files if not f.startswith(".")]
assert len(outputs) == len(expected) and len(set(outputs)) == len(outputs), f"outputs: {sorted(outputs)}"
# One shared --out: each shard's own database and lock beside the others', no plain database, no temporary file left.
state = sorted(f for f in os.listdir(out) if f.startswith(".mediaexport"))
want = sorted(f".mediaexport.shard-{k}-of-3.{ext}" for k in range(3) for ext in ("sqlite", "lock"))
assert state == want, f"state files in the shared --out: {state}, expected {want}"
leftovers = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs if ".mediaexport-tmp-" in f]
assert not leftovers, f"temporary files left: {leftovers}"
for r in merged:
    assert os.path.getsize(r["output"]) > 0, f"empty output {r['output']}"
shards = {k: t[0] for k, t in sorted(seen.items())}
print(f"test-slurm: {len(expected)} assets, each exported once into one --out; shard of each (task id): {shards}; "
      f"requeued task 2 resumed past {first}")
EOF

# Two of three shard reports: the merge refuses (exit 1), naming the missing shard (task 2 is shard 1).
status=0
"$MEDIAEXPORT_BIN" report merge "$WORK/reports/shard-1.json" "$WORK/reports/shard-3.json" --out "$WORK/partial.json" \
    2>"$WORK/partial.err" || status=$?
[ "$status" = 1 ] && grep -q "missing shard 1 of 3" "$WORK/partial.err" && [ ! -e "$WORK/partial.json" ] \
    || fail "merge of two of three shards: exit $status, $(cat "$WORK/partial.err")"
echo "test-slurm: a merge without task 2's report fails: $(cat "$WORK/partial.err")"
