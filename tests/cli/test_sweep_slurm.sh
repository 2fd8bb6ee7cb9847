#!/bin/sh
# experiments/sweep.sh --emit slurm against a time model written here (as
# data, so nothing depends on this machine's speed) and stand-ins for
# sbatch, squeue and sacct on PATH (the real Slurm: test_slurm.sh):
#   - every unfinished cell in exactly one array, at its task; its --time
#     and --mem the stated law (recomputed here, with sbw-fit --dry-run's
#     plan asked of a header made here); an array's cells of one language
#     and within a factor 2 of each other in time and memory, the array's
#     requests its largest; cells of very different cost split;
#   - submit.sh submits each language once and each array after its own
#     language's job (afterok), records the ids, refuses a second run;
#   - collect names a queued cell (squeue), a TIMEOUT (sacct; else the
#     task's log), a language whose job failed; a new emission is refused
#     while jobs are queued, else keeps the earlier one in slurm.1;
#   - a damaged or foreign time model is refused (exit 1), never run.
. tests/cli/lib.sh
. tests/cli/npy.sh
S=experiments/sweep.sh
ABS=$(cd "$BIN" && pwd)
export SBW_BIN="$ABS"
P=$T/p
GP="--alpha 0.1,1 --m 50,400 --d 2,40 --heads softmax,mos --k 3 --n 3000 --seeds 2 --steps 300 --threads 2"
# shellcheck disable=SC2086
expect_exit 0 "plan" $S $GP --out "$P" plan
cat >"$P/timemodel" <<'EOF'
# a time model written by the test
threads=2
time_safety=3
mem_safety=1.25
min_minutes=5
synth_rate=1e-6
synth_rss_mib=20
fit_start=0.5
base_mib=30
a.softmax=2e-8
b.softmax=1e-9
a.mos=6e-7
b.mos=3e-8
EOF
cp "$P/timemodel" "$T/tm.good"
# one cell done here: not emitted; its language made: no job for it
expect_exit 0 "a cell here" $S --out "$P" cell a1_m50_d2_softmax
expect_exit 0 "emit slurm" $S --out "$P" --emit slurm
expect_exit 1 "no calibration run (the model was there)" test -e "$P/calibration.tsv"
s=$P/slurm
tsv_rows "$s/plan.tsv" | tail -n +2 >"$T/plan"
grep -vx a1_m50_d2_softmax "$P/cells.txt" | sort >"$T/want_cells"
cut -f1 "$T/plan" | sort >"$T/got_cells"
expect_exit 0 "plan.tsv: every unfinished cell once" cmp "$T/want_cells" "$T/got_cells"

# the law, recomputed: seconds = seeds (fit_start + (steps + 2) n m (a + b d)),
# minutes = max(5, ceil(3 seconds / 60)), mem = ceil(1.25 (plan / 2^20 + 30))
npy_header '<f8' '(3000, 50)' "$T/h50.npy"
npy_header '<f8' '(3000, 400)' "$T/h400.npy"
while IFS="$(printf '\t')" read -r cell lang file task sec minutes mem; do
    h=${cell##*_}
    d=${cell#*_d}; d=${d%%_*}
    m=${lang##*_m}
    kopt=""
    [ "$h" = mos ] && kopt="--k 3"
    # shellcheck disable=SC2086
    plan=$(cat "$T/h$m.npy" | "$BIN/sbw-fit" --dry-run -q --model "$h" --d "$d" $kopt --threads 2 - | awk -F'\t' '$1 == "total" { print $2 }')
    want=$(awk -v h="$h" -v d="$d" -v m="$m" -v p="$plan" 'BEGIN {
        a = (h == "mos") ? 6e-7 : 2e-8; b = (h == "mos") ? 3e-8 : 1e-9
        s = 2 * (0.5 + 302 * 3000 * m * (a + b * d))
        t = 3 * s / 60; t = (t == int(t)) ? t : int(t) + 1; if (t < 5) t = 5
        x = 1.25 * (p / 1048576 + 30); x = (x == int(x)) ? x : int(x) + 1
        printf "%d %d", t, x }')
    expect_eq "$minutes $mem" "$want" "$cell: --time and --mem by the law"
    case $file in "fit_${lang}_"[0-9]*.sbatch) ok ;; *) bad "$cell in $file, not an array of $lang" ;; esac
    # the cell at its task in its array
    got=$(awk '/^CELLS=\($/ { on = 1; next } /^\)$/ { on = 0 } on { print $1 }' "$s/$file" | sed -n "$((task + 1))p")
    expect_eq "$got" "$cell" "$cell: task $task of $file"
done <"$T/plan"
# each array: one language, within a factor 2, requests its largest
narr=0
for f in "$s"/fit_*.sbatch; do
    narr=$((narr + 1))
    b=${f##*/}
    expect_eq "$(awk -F'\t' -v f="$b" '$3 == f { print $2 }' "$T/plan" | sort -u | wc -l)" 1 "$b: one language"
    stats=$(awk -F'\t' -v f="$b" '$3 == f { n++; if (!t0 || $6 < t0) t0 = $6; if ($6 > t1) t1 = $6; if (!m0 || $7 < m0) m0 = $7; if ($7 > m1) m1 = $7 }
        END { printf "%d %d %d %d %d", n, t1, m1, (t1 < 2 * t0), (m1 < 2 * m0) }' "$T/plan")
    set -- $stats
    expect_eq "$4 $5" "1 1" "$b: cells within a factor 2 in time and memory"
    expect_grep "^#SBATCH --array=0-$(($1 - 1))\$" "$f" "$b: a task per cell"
    expect_grep "^#SBATCH --time=$2\$" "$f" "$b: the largest time"
    expect_grep "^#SBATCH --mem=${3}M\$" "$f" "$b: the largest memory"
    expect_grep '^#SBATCH --cpus-per-task=2$' "$f" "$b: the sweep's threads"
    expect_exit 0 "$b: bash -n" bash -n "$f"
done
if [ "$narr" -gt 4 ]; then ok; else bad "cells of very different cost in one array: $narr arrays for 4 languages"; fi
for l in a0.1_m50 a0.1_m400 a1_m400; do
    expect_exit 0 "language job $l" test -f "$s/lang_$l.sbatch"
    expect_grep "lang $l\$" "$s/lang_$l.sbatch" "language job $l: makes it"
done
expect_exit 1 "no job for the language made" test -e "$s/lang_a1_m50.sbatch"

# ---- submit.sh with a stand-in sbatch ------------------------------------------------------------
F=$T/fake
mkdir -p "$F"
cat >"$F/sbatch" <<'EOF'
#!/bin/sh
n=$(cat "$FAKE/n" 2>/dev/null || echo 100)
n=$((n + 1))
echo $n >"$FAKE/n"
echo "$n $*" >>"$FAKE/sbatch.log"
echo "$n;fakecluster"
EOF
cat >"$F/squeue" <<'EOF'
#!/bin/sh
[ -f "$FAKE/queue.txt" ] && cat "$FAKE/queue.txt"
exit 0
EOF
cat >"$F/sacct" <<'EOF'
#!/bin/sh
[ -f "$FAKE/sacct.txt" ] || { echo "Slurm accounting storage is disabled" >&2; exit 1; }
cat "$FAKE/sacct.txt"
EOF
chmod +x "$F/sbatch" "$F/squeue" "$F/sacct"
export FAKE="$F"
FP="$F:$PATH"
expect_exit 0 "submit" env PATH="$FP" bash "$s/submit.sh"
expect_eq "$(wc -l <"$s/jobs.tsv")" "$((narr + 3))" "submit: every job recorded"
expect_eq "$(cut -f1 "$s/jobs.tsv" | grep -c ';')" 0 "submit: the ids without the cluster"
# each array after its own language's job
while read -r id args; do
    f=${args##* }
    case $f in fit_*)
        l=${f#fit_}; l=${l%_*}
        lid=$(awk -F'\t' -v f="lang_$l.sbatch" '$2 == f { print $1 }' "$s/jobs.tsv")
        if [ "$l" = a1_m50 ]; then
            expect_eq "$args" "--parsable $f" "$f: its language is made, no dependency"
        else
            expect_eq "$args" "--parsable --dependency=afterok:$lid --kill-on-invalid-dep=yes $f" "$f after its language's job"
        fi ;;
    esac
done <"$F/sbatch.log"
expect_exit 1 "submit twice" env PATH="$FP" bash "$s/submit.sh"

# ---- collect: queued, timed out (sacct, else the log), a language not made ---------------------------
arr=$(cut -f3 "$T/plan" | grep "^fit_a0.1_m400_" | sort -u | head -n 1)
aid=$(awk -F'\t' -v f="$arr" '$2 == f { print $1 }' "$s/jobs.tsv")
c0=$(awk -F'\t' -v f="$arr" '$3 == f && $4 == 0 { print $1 }' "$T/plan")
lid=$(awk -F'\t' '$2 == "lang_a1_m400.sbatch" { print $1 }' "$s/jobs.tsv")
echo "${aid}_0|PENDING" >"$F/queue.txt"
printf '%s|FAILED\n' "$lid" >"$F/sacct.txt"
: >"$P/lang/a0.1_m400.npy"
expect_exit 0 "collect" env PATH="$FP" $S --out "$P" collect
expect_grep "^$c0 queued: Slurm job ${aid}_0 PENDING\$" "$P/missing.txt" "collect: a queued cell"
expect_grep "^a1_m400_d40_mos missing: language a1_m400 not made \\(Slurm job $lid FAILED\\)" "$P/missing.txt" \
    "collect: a language whose job failed"
expect_grep '1 queued in Slurm' "$T/err" "collect: the queued count"
expect_exit 1 "emit while queued" env PATH="$FP" $S --out "$P" --emit slurm
expect_grep "still queued \\(${aid}_0 PENDING\\)" "$T/err" "emit while queued: said"
rm "$F/queue.txt"
printf '%s_0|TIMEOUT\n' "$aid" >"$F/sacct.txt"
expect_exit 0 "collect a timeout (sacct)" env PATH="$FP" $S --out "$P" collect
expect_grep "^$c0 failed: Slurm TIMEOUT ${aid}_0 " "$P/missing.txt" "collect: sacct's TIMEOUT"
rm "$F/sacct.txt"
log=$s/logs/${arr%.sbatch}-0.log
echo "slurmstepd: error: *** JOB ${aid} ON node CANCELLED AT 2026-01-01T00:00:00 DUE TO TIME LIMIT ***" >"$log"
expect_exit 0 "collect a timeout (log)" env PATH="$FP" $S --out "$P" collect
expect_grep "^$c0 failed: Slurm TIMEOUT \\(from its log\\)" "$P/missing.txt" "collect: the log's time limit"
rm "$P/lang/a0.1_m400.npy"
expect_exit 0 "emit again" env PATH="$FP" $S --out "$P" --emit slurm
expect_exit 0 "the earlier submission kept" test -f "$P/slurm.1/jobs.tsv"
expect_exit 1 "the new one not yet submitted" test -e "$s/jobs.tsv"

# ---- the time model is data -------------------------------------------------------------------------
for evil in 'threads=2; touch "$T/pwned"' 'a.mos=$(touch pwned)' 'touch pwned' 'fit_start=-1' 'gpu_seconds=1' 'PATH=/nowhere'; do
    { printf '%s\n' "$evil"; grep -v "^${evil%%=*}=" "$T/tm.good"; } >"$P/timemodel"
    expect_exit 1 "time model: $evil" $S --out "$P" --emit slurm
    expect_grep 'timemodel: line 1[: ].*calibrate again' "$T/err" "time model: $evil: the line named"
    if [ -e "$T/pwned" ] || [ -e pwned ] || [ -e "$P/pwned" ]; then bad "time model ran code"; else ok; fi
done
sed 's/^threads=2$/threads=1/' "$T/tm.good" >"$P/timemodel"
expect_exit 1 "time model of other threads" $S --out "$P" --emit slurm
expect_grep 'other threads' "$T/err" "time model of other threads: said"
grep -v '^b.mos=' "$T/tm.good" >"$P/timemodel"
expect_exit 1 "time model without a head" $S --out "$P" --emit slurm
expect_grep 'no b.mos line' "$T/err" "time model without a head: said"
finish
