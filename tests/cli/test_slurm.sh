#!/bin/sh
# experiments/sweep.sh on a real single-node Slurm (issue 29): the test
# starts munged (its own key and socket), slurmctld and slurmd (a
# slurm.conf for this node as `slurmd -C` describes it: select/cons_tres,
# proctrack/linuxproc, no cgroups, state and spool in the test's folder,
# every daemon bound to 127.0.0.1 only: NoInAddrAny), and stops them at
# the end (a Slurm client waits long for a controller that is gone, so
# every poll has a timeout).
#   - a tiny sweep emitted (--emit slurm), submitted (submit.sh), waited
#     for and collected equals the same sweep run here (run), every column
#     but seconds, and its figures' data are the same bytes; every array
#     task started after its language job ended (afterok);
#   - resumed with only --out: a language and its cells removed and a cell
#     on a damaged language make one language job and two arrays; collect
#     names the failed cell with sbw-fit's reason; after a repair, a third
#     round completes the sweep, equal again to the local run;
#   - a cell cancelled while it runs (scancel) is named failed, stopped by
#     a signal, with Slurm's CANCELLED from its log (no accounting here);
#   - docs/cluster/sbw-rank.sbatch runs sbw-rank under srun and writes what
#     sbw-rank writes run directly;
#   - experiments/argmax-shards.sh: a head scan as a job array of shards
#     and a merge job (afterok) writes what sbw-argmax writes run directly
#     (but for its command line and seconds); a failed shard cancels the
#     merge.
# Skipped with a note when slurm-wlm, munge or GNU time is not installed
# (scripts/deps.sh --slurm installs them).
PATH=$PATH:/usr/sbin:/sbin
for t in slurmctld slurmd munged sbatch squeue scontrol scancel sinfo srun /usr/bin/time; do
    if ! command -v "$t" >/dev/null 2>&1; then
        echo "test_slurm.sh: skipped: $t is not installed (scripts/deps.sh --slurm installs slurm-wlm, munge and time)"
        exit 0
    fi
done
. tests/cli/lib.sh
S=experiments/sweep.sh
ABS=$(cd "$BIN" && pwd)
export SBW_BIN="$ABS"
ROOT=$(pwd)
# munged wants every folder above its socket searchable by all
chmod 755 "$T"
D=$T/slurm
mkdir -p "$D/state" "$D/spool" "$D/log" "$D/munge"
mkdir -m 700 "$D/key"
chmod 755 "$D" "$D/munge"
MUNGED="" CTLD="" SLURMD=""

# stop_all: our jobs cancelled and ended, then slurmd, slurmctld, munged
# (each by the id this test started it with), waited for
stop_all() {
    if [ -n "$CTLD" ] && kill -0 "$CTLD" 2>/dev/null; then
        timeout 20 scancel --user="$(id -un)" 2>/dev/null
        i=0
        while [ $i -lt 100 ] && [ -n "$(timeout 10 squeue -h -o %i 2>/dev/null)" ]; do
            sleep 0.2
            i=$((i + 1))
        done
    fi
    for p in $SLURMD $CTLD $MUNGED; do kill -TERM "$p" 2>/dev/null; done
    for p in $SLURMD $CTLD $MUNGED; do wait "$p" 2>/dev/null; done
    MUNGED="" CTLD="" SLURMD=""
}
trap 'stop_all; rm -rf "$T"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# give_up WHAT: a daemon did not come up; its logs, then the end
give_up() {
    bad "$1"
    tail -n 20 "$D"/log/* >&2
    finish
}

dd if=/dev/urandom of="$D/key/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$D/key/munge.key"
munged -F --socket="$D/munge/socket" --key-file="$D/key/munge.key" --pid-file="$D/munge/pid" \
    --seed-file="$D/key/seed" --log-file="$D/log/munged.log" >"$D/log/munged.out" 2>&1 &
MUNGED=$!
i=0
while [ $i -lt 100 ] && [ ! -S "$D/munge/socket" ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$D/munge/socket" ] || give_up "munged did not start"

HOST=$(hostname -s)
# two free ports from the process id (a second copy of this test at once
# gets others)
PORT=$((20000 + $$ % 20000 * 2))
while command -v ss >/dev/null 2>&1 && ss -ltnH | grep -Eq ":($PORT|$((PORT + 1))) "; do
    PORT=$((PORT + 2))
done
# this node as slurmd sees it (CPUs, sockets, cores, RealMemory), at 127.0.0.1
NODE=$(slurmd -C | grep '^NodeName=' | sed "s/^NodeName=[^ ]*/NodeName=$HOST NodeAddr=127.0.0.1/")
cat >"$D/slurm.conf" <<EOF
ClusterName=sbwtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/socket
CommunicationParameters=NoInAddrAny
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
SchedulerParameters=sched_interval=1
KillWait=5
MinJobAge=600
$NODE State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$D/slurm.conf"
slurmctld -D -i >"$D/log/slurmctld.out" 2>&1 &
CTLD=$!
slurmd -D -N "$HOST" >"$D/log/slurmd.out" 2>&1 &
SLURMD=$!
i=0
while [ $i -lt 60 ] && kill -0 "$CTLD" 2>/dev/null && [ "$(timeout 5 sinfo -h -o %T 2>/dev/null)" != idle ]; do
    sleep 0.5
    i=$((i + 1))
done
[ "$(timeout 5 sinfo -h -o %T 2>/dev/null)" = idle ] || give_up "the node did not come up idle"

# wait_jobs: until none of our jobs is queued (at most 3 minutes)
wait_jobs() {
    i=0
    while [ $i -lt 900 ] && [ -n "$(timeout 10 squeue -h -o %i)" ]; do sleep 0.2; i=$((i + 1)); done
    [ -z "$(timeout 10 squeue -h -o %i)" ] || bad "jobs still queued after 3 minutes: $(timeout 10 squeue)"
}
# same_results A B WHAT: A's results.tsv equals B's but for the seconds
# column, and their figures' data are the same bytes
same_results() {
    col=$(tsv_rows "$1/results.tsv" | head -n 1 | tr '\t' '\n' | grep -nx seconds | cut -d: -f1)
    cut -f"$col" --complement "$1/results.tsv" >"$T/r1"
    cut -f"$col" --complement "$2/results.tsv" >"$T/r2"
    if [ -n "$col" ] && cmp -s "$T/r1" "$T/r2" && [ "$(tsv_rows "$T/r1" | wc -l)" = 17 ]; then ok; else
        bad "$3: results differ: $(diff "$T/r1" "$T/r2" | head -n 6)"
    fi
    for f in "$2"/*.dat; do
        cmp -s "$f" "$1/${f##*/}" || bad "$3: ${f##*/} differs"
    done
    expect_eq "$(ls "$1"/*.dat | wc -l)" 4 "$3: four figures"
}

GRID="--alpha 0.1,1 --m 20 --d 2,3 --heads softmax,mos --seeds 2 --n 40 --k 2 --steps 10 --threads 1"
# shellcheck disable=SC2086
expect_exit 0 "local run" $S $GRID --out "$T/local" -j 2 run

# ---- a sweep submitted, waited for, collected ------------------------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "emit slurm" $S $GRID --out "$T/s" --emit slurm
expect_grep '2 language job\(s\), 2 array\(s\) over 8 cells' "$T/err" "emit: the jobs"
expect_exit 0 "submit" bash "$T/s/slurm/submit.sh"
expect_eq "$(wc -l <"$T/s/slurm/jobs.tsv")" 4 "submit: four jobs recorded"
wait_jobs
expect_exit 0 "collect" $S --out "$T/s" collect
expect_grep '8 of 8 cells .* 0 missing' "$T/err" "collect: every cell"
same_results "$T/s" "$T/local" "Slurm against local"
# afterok: no task of an array started before its language job ended
for a in 0.1 1; do
    lid=$(awk -F'\t' -v f="lang_a${a}_m20.sbatch" '$2 == f { print $1 }' "$T/s/slurm/jobs.tsv")
    fid=$(awk -F'\t' -v f="fit_a${a}_m20_1.sbatch" '$2 == f { print $1 }' "$T/s/slurm/jobs.tsv")
    lend=$(scontrol show job "$lid" | grep -o 'EndTime=[^ ]*' | cut -d= -f2)
    starts=$(scontrol show job "$fid" | grep -o 'StartTime=[^ ]*' | cut -d= -f2 | sort | head -n 1)
    expect_eq "$(scontrol show job "$lid" | grep -o 'JobState=[A-Z]*')" "JobState=COMPLETED" "language a$a: completed"
    if [ -n "$lend" ] && [ -n "$starts" ] && { [ "$starts" = "$lend" ] || [ "$(printf '%s\n%s\n' "$lend" "$starts" | sort | head -n 1)" = "$lend" ]; }; then
        ok
    else bad "language a$a ended $lend, its first cell started $starts"; fi
done

# ---- resumed with only --out: a language remade, a cell failing ----------------------------------------
rm "$T/s/lang/a1_m20.npy" "$T/s"/cells/a1_m20_*.tsv "$T/s/cells/a0.1_m20_d3_softmax.tsv"
cp "$T/s/lang/a0.1_m20.npy" "$T/lang.good"
head -c 200 "$T/lang.good" >"$T/s/lang/a0.1_m20.npy" # damaged: the header and part of a row
expect_exit 0 "emit again, only --out" $S --out "$T/s" --emit slurm
expect_grep '1 language job\(s\), 2 array\(s\) over 5 cells' "$T/err" "emit again: the unfinished cells"
expect_exit 0 "earlier submission kept" test -f "$T/s/slurm.1/jobs.tsv"
expect_grep 'dependency=afterok:\$L1 ' "$T/s/slurm/submit.sh" "emit again: the new language's cells wait for it"
expect_eq "$(grep -c 'dependency' "$T/s/slurm/submit.sh")" 1 "emit again: the made language's cell waits for nothing"
expect_exit 0 "submit again" bash "$T/s/slurm/submit.sh"
expect_exit 1 "submit twice" bash "$T/s/slurm/submit.sh"
wait_jobs
expect_exit 0 "collect again" $S --out "$T/s" collect
expect_grep '7 of 8 cells .* 1 missing \(1 failed, 0 queued' "$T/err" "collect again: one failed"
expect_grep '^a0.1_m20_d3_softmax failed: .*truncated' "$T/s/missing.txt" "collect again: sbw-fit's reason"
rm "$T/s/lang/a0.1_m20.npy"
expect_exit 0 "emit a third time" $S --out "$T/s" --emit slurm
expect_grep '1 language job\(s\), 1 array\(s\) over 1 cells' "$T/err" "third: the failed cell and its language"
expect_exit 0 "submit a third time" bash "$T/s/slurm/submit.sh"
wait_jobs
expect_exit 0 "collect a third time" $S --out "$T/s" collect
expect_grep '8 of 8 cells .* 0 missing' "$T/err" "third: every cell"
same_results "$T/s" "$T/local" "resumed on Slurm against local"
expect_exit 0 "the language made again is the same" cmp "$T/lang.good" "$T/s/lang/a0.1_m20.npy"
expect_exit 0 "nothing left to emit" $S --out "$T/s" --emit slurm
expect_grep 'every cell .* is finished; nothing to submit' "$T/err" "nothing left: said"

# ---- a cell cancelled while it runs ---------------------------------------------------------------------
expect_exit 0 "emit a long cell" $S --alpha 1 --m 20 --d 2 --heads softmax --seeds 1 --n 40 --steps 100000000 \
    --threads 1 --out "$T/c" --emit slurm
expect_exit 0 "submit the long cell" bash "$T/c/slurm/submit.sh"
i=0
while [ $i -lt 600 ] && [ ! -f "$T/c/cells/a1_m20_d2_softmax.err" ]; do sleep 0.1; i=$((i + 1)); done
fid=$(awk -F'\t' '$2 ~ /^fit_/ { print $1 }' "$T/c/slurm/jobs.tsv")
expect_eq "$(squeue -h -j "$fid" -o %T)" RUNNING "the long cell runs"
expect_exit 0 "scancel" scancel "$fid"
wait_jobs
expect_exit 1 "collect the cancelled (no cell finished)" $S --out "$T/c" collect
expect_grep '^a1_m20_d2_softmax failed: stopped by a signal in Slurm job [0-9]+_0 .*\[Slurm CANCELLED' \
    "$T/c/missing.txt" "cancelled: named, with Slurm's word"
if ls -a "$T/c/cells" | grep -q '^\.a'; then bad "cancelled: a temporary left: $(ls -a "$T/c/cells")"; else ok; fi

# ---- the example batch script: sbw-rank under srun ------------------------------------------------------
"$BIN/sbw-synth" lowrank --n 300 --m 200 --rank 7 --seed 3 -q -o "$T/low.npy" >/dev/null
(cd "$T" && "$ABS/sbw-rank" --threads 1 low.npy >rank.direct.tsv 2>/dev/null)
expect_exit 0 "sbatch docs/cluster/sbw-rank.sbatch" sh -c 'cd "$1" && sbatch --wait --cpus-per-task=1 --mem=200M \
    --output="$1/rank.log" "$2/docs/cluster/sbw-rank.sbatch" low.npy rank.slurm.tsv' sh "$T" "$ROOT"
expect_exit 1 "sbatch docs/cluster/sbw-rank.sbatch on a missing file" sh -c 'cd "$1" && sbatch --wait \
    --cpus-per-task=1 --mem=200M --output="$1/rank2.log" "$2/docs/cluster/sbw-rank.sbatch" none.npy rank.none.tsv' sh "$T" "$ROOT"
expect_grep 'sbw-rank: .*none.npy' "$T/rank2.log" "sbw-rank under srun: its reason in the log"
if ls "$T" | grep -q 'rank.none'; then bad "sbw-rank under srun: a partial table left"; else ok; fi
# the same table but for the command line and the timings
grep -Ev '^# (command|seconds[a-z_]*)=' "$T/rank.direct.tsv" >"$T/rank.a"
grep -Ev '^# (command|seconds[a-z_]*)=' "$T/rank.slurm.tsv" >"$T/rank.b"
if [ -s "$T/rank.a" ] && cmp -s "$T/rank.a" "$T/rank.b"; then ok; else
    bad "sbw-rank under srun: $(diff "$T/rank.a" "$T/rank.b" | head -n 6); log: $(head -c 300 "$T/rank.log")"
fi

# ---- a head scan in shards (experiments/argmax-shards.sh): a job array and its merge ---------------------
# 300 words in 7 shards (7 does not divide 300), with a bias, names and
# --max-prob: the merged table is the one sbw-argmax writes run here, but
# for its command line and seconds; the merge started after every shard
# ended (afterok); a shard that fails cancels the merge (nothing written)
"$BIN/sbw-synth" head -q --m 300 --d 6 --k 12 --bias "$T/hb.npy" --vocab "$T/hv.txt" -o "$T/hW.npy" >/dev/null
HARGS="--bias hb.npy --vocab hv.txt --max-prob 1,10"
# shellcheck disable=SC2086 # HARGS: words
(cd "$T" && "$ABS/sbw-argmax" --threads 1 -q $HARGS -o argmax.direct.tsv hW.npy)
# shellcheck disable=SC2016,SC2086
expect_exit 0 "argmax-shards: emit" sh -c 'cd "$1" && shift && sh "$@"' sh "$T" \
    "$ROOT/experiments/argmax-shards.sh" --shards 7 --out scan $HARGS hW.npy
expect_grep 'an array of 7 shards \(300 words' "$T/err" "argmax-shards: the array said"
expect_exit 0 "argmax-shards: submit" bash "$T/scan/slurm/submit.sh"
wait_jobs
expect_eq "$(ls "$T/scan/shards" | wc -l)" 7 "argmax-shards: seven shard tables"
grep -Ev '^# (command|seconds[a-z_]*)=' "$T/argmax.direct.tsv" >"$T/am.a"
grep -Ev '^# (command|seconds[a-z_]*)=' "$T/scan/argmax.tsv" >"$T/am.b" 2>/dev/null
if [ -s "$T/am.a" ] && cmp -s "$T/am.a" "$T/am.b"; then ok; else
    bad "argmax-shards: merged differs from the direct run: $(diff "$T/am.a" "$T/am.b" | head -n 6); log: $(cat "$T/scan/slurm/logs/"* | head -c 300)"
fi
expect_eq "$(tsv_meta "$T/scan/argmax.tsv" unargmaxable)" 12 "argmax-shards: the 12 planted words"
aid=$(awk -F'\t' '$2 == "shards.sbatch" { print $1 }' "$T/scan/slurm/jobs.tsv")
mid=$(awk -F'\t' '$2 == "merge.sbatch" { print $1 }' "$T/scan/slurm/jobs.tsv")
ends=$(scontrol show job "$aid" | grep -o 'EndTime=[^ ]*' | cut -d= -f2 | sort | tail -n 1)
mstart=$(scontrol show job "$mid" | grep -o 'StartTime=[^ ]*' | cut -d= -f2)
expect_eq "$(scontrol show job "$aid" | grep -c 'JobState=COMPLETED')" 7 "argmax-shards: seven tasks completed"
if [ -n "$ends" ] && [ -n "$mstart" ] && [ "$(printf '%s\n%s\n' "$ends" "$mstart" | sort | head -n 1)" = "$ends" ]; then
    ok
else bad "argmax-shards: the last shard ended $ends, the merge started $mstart"; fi
# a shard that fails: its head damaged after the emission
cp "$T/hW.npy" "$T/hW2.npy"
# shellcheck disable=SC2016,SC2086
expect_exit 0 "argmax-shards: emit (to fail)" sh -c 'cd "$1" && shift && sh "$@"' sh "$T" \
    "$ROOT/experiments/argmax-shards.sh" --shards 3 --out scan2 $HARGS hW2.npy
head -c 300 "$T/hW.npy" >"$T/hW2.npy"
expect_exit 0 "argmax-shards: submit (to fail)" bash "$T/scan2/slurm/submit.sh"
expect_exit 1 "argmax-shards: submit twice" bash "$T/scan2/slurm/submit.sh"
wait_jobs
mid=$(awk -F'\t' '$2 == "merge.sbatch" { print $1 }' "$T/scan2/slurm/jobs.tsv")
expect_absent "$T/scan2/argmax.tsv" "argmax-shards: no merged table after a failed shard"
expect_grep 'sbw-argmax: .*hW2.npy' "$T/scan2/slurm/logs/shard-0.log" "argmax-shards: the shard's reason in its log"
# the merge was cancelled (kill-on-invalid-dep), or is gone from the queue unrun
if scontrol show job "$mid" 2>/dev/null | grep -q 'JobState=COMPLETED'; then bad "argmax-shards: the merge ran"; else ok; fi
# ---- sbw-rank-mpi under srun (docs/cluster/sbw-rank-mpi.sbatch; issue 29), when built ------------------
MPI_TOOL=${SBW_RANK_MPI:-$(dirname "$ABS")/$(case "$BIN" in bin | ./bin) echo build ;; *) echo . ;; esac)/mpi/sbw-rank-mpi}
if [ -x "$MPI_TOOL" ] && srun --mpi=list 2>&1 | grep -qw pmix; then
    MPI_DIR=$(cd "${MPI_TOOL%/*}" && pwd)
    # Under AddressSanitizer (make asan) Open MPI's own allocations read as
    # leaks at exit; sbatch passes the environment on, so the tasks run with
    # leak checking off (test_rank_mpi.sh checks sbw-rank-mpi's leaks with
    # Open MPI's suppressed), memory errors still fatal.
    if nm "$MPI_TOOL" 2>/dev/null | grep -q __asan_init; then
        export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
    fi
    (cd "$T" && "$ABS/sbw-rank" --threads 1 --center low.npy >rankc.direct.tsv 2>/dev/null)
    expect_exit 0 "sbatch docs/cluster/sbw-rank-mpi.sbatch (2 tasks, srun --mpi=pmix)" sh -c 'cd "$1" &&
        SBW_MPI_BIN="$3" SRUN_MPI_TYPE=pmix sbatch --wait --ntasks=2 --mem-per-cpu=200M --output="$1/mpi.log" \
        "$2/docs/cluster/sbw-rank-mpi.sbatch" low.npy rank.mpi.tsv --center' sh "$T" "$ROOT" "$MPI_DIR"
    expect_grep '^# processes=2$' "$T/rank.mpi.tsv" "sbw-rank-mpi under srun: 2 processes ($(head -c 300 "$T/mpi.log"))"
    for f in rank rank_numpy rank_gap rank_single; do
        expect_eq "$(tsv_field "$T/rank.mpi.tsv" $f)" "$(tsv_field "$T/rankc.direct.tsv" $f)" "sbw-rank-mpi under srun: $f as sbw-rank's"
    done
    expect_exit 1 "sbatch docs/cluster/sbw-rank-mpi.sbatch on a missing file" sh -c 'cd "$1" &&
        SBW_MPI_BIN="$3" SRUN_MPI_TYPE=pmix sbatch --wait --ntasks=2 --mem-per-cpu=200M --output="$1/mpi2.log" \
        "$2/docs/cluster/sbw-rank-mpi.sbatch" none.npy rank.mpinone.tsv' sh "$T" "$ROOT" "$MPI_DIR"
    expect_grep 'sbw-rank-mpi: .*none.npy' "$T/mpi2.log" "sbw-rank-mpi under srun: its reason in the log"
    if ls "$T" | grep -q 'rank.mpinone'; then bad "sbw-rank-mpi under srun: a partial table left"; else ok; fi
else
    echo "test_slurm.sh: sbw-rank-mpi not built or srun has no pmix: its batch script is checked under mpirun only (test_rank_mpi.sh)"
fi

stop_all
finish
