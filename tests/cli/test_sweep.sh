#!/bin/sh
# CLI checks of experiments/sweep.sh on a tiny grid: it finishes with a
# results table, figures and a report; killed half-way and rerun, it keeps
# the finished cells and redoes only the rest; --emit slurm names every cell
# once in a script bash accepts; the collector lists a deleted cell.
. tests/cli/lib.sh
S=experiments/sweep.sh
ABS=$(cd "$BIN" && pwd)
export SBW_BIN="$ABS"
GRID="--alpha 0.1,1 --m 20 --d 2,3 --heads softmax,mos --seeds 2 --n 40 --k 2"

# ---- a whole run ----------------------------------------------------------------------------
# shellcheck disable=SC2086
expect_exit 0 "sweep run" $S $GRID --steps 10 --out "$T/a" -j 2 run
expect_eq "$(wc -l <"$T/a/cells.txt")" 8 "2 alphas x 2 D x 2 heads"
expect_eq "$(ls "$T/a/cells" | grep -c '\.tsv$')" 8 "every cell finished"
expect_eq "$(tsv_rows "$T/a/results.tsv" | tail -n +2 | wc -l)" 16 "results: 8 cells x 2 seeds"
expect_eq "$(tsv_rows "$T/a/results.tsv" | head -n 1 | cut -f1-6)" "$(printf 'alpha\tm\td\tmodel\tk\tseed')" "results columns"
expect_grep '\[8/8 cells\] .* done, ETA' "$T/err" "progress with an ETA"
expect_grep 'N=40 contexts \(the paper: 100000, --paper\)' "$T/err" "N printed with the paper's value"
for f in fig_mode_match_a0.1 fig_kl_mean_a0.1 fig_mode_match_a1 fig_kl_mean_a1; do
    if [ -s "$T/a/$f.png" ] && [ -s "$T/a/$f.gp" ]; then ok; else bad "figure $f missing"; fi
    expect_grep "\($f.png\)" "$T/a/report.md" "report embeds $f"
done
expect_grep '^\| 20 \| mos K=2 \| 3 \| ' "$T/a/report.md" "report table: M, head, D"
# the figures' means are the seeds' means
want=$(awk -F'\t' '$1 == "0.1" && $3 == 3 && $4 == "softmax" { s += $10; n++ } END { printf "%.12g", s / n }' "$T/a/results.tsv")
got=$(awk -F'\t' '/^# index 0:/ { b = 1; next } b && /^3\t/ { print $2; exit }' "$T/a/fig_mode_match_a0.1.dat")
expect_num_near "$got" "$want" 1e-12 "figure: mean over seeds"
# a rerun has nothing to do
expect_exit 0 "rerun" $S $GRID --steps 10 --out "$T/a" run
expect_grep '8 cells \(8 done, 0 to run' "$T/err" "rerun: nothing to run"
# other settings in the same folder are refused
expect_exit 2 "other settings" $S $GRID --steps 11 --out "$T/a" run
expect_grep 'holds a sweep with other settings' "$T/err" "other settings: reason"

# ---- killed half-way, resumed ----------------------------------------------------------------
# one cell at a time, slow enough to be caught between cells
setsid sh $S $GRID --steps 20000 --out "$T/k" -j 1 run >"$T/k.out" 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && [ "$(ls "$T/k/cells" 2>/dev/null | grep -c '\.tsv$')" -lt 2 ]; do
    sleep 0.1
    i=$((i + 1))
done
kill -TERM -"$pid" 2>/dev/null
wait "$pid" 2>/dev/null
n_done=$(ls "$T/k/cells" | grep -c '\.tsv$')
if [ "$n_done" -ge 2 ] && [ "$n_done" -lt 8 ]; then ok; else bad "killed run: $n_done cells done, want 2..7"; fi
ls "$T/k/cells" | grep '\.tsv$' >"$T/done_before"
for c in $(cat "$T/done_before"); do
    expect_eq "$(tsv_rows "$T/k/cells/$c" | tail -n +2 | wc -l)" 2 "finished cell $c is whole"
done
ls -i "$T/k/cells" | grep '\.tsv$' | sort >"$T/inodes_before"
expect_exit 0 "resume" $S $GRID --steps 20000 --out "$T/k" -j 2 run
expect_grep "8 cells \($n_done done, $((8 - n_done)) to run" "$T/err" "resume: only the rest"
expect_eq "$(ls "$T/k/cells" | grep -c '\.tsv$')" 8 "resume: every cell"
ls -i "$T/k/cells" | grep '\.tsv$' | sort >"$T/inodes_after"
if [ -z "$(comm -23 "$T/inodes_before" "$T/inodes_after")" ]; then ok; else bad "resume rewrote finished cells: $(comm -23 "$T/inodes_before" "$T/inodes_after")"; fi
if ls -a "$T/k/cells" | grep -q '^\.'"[a-z]"; then bad "a half-written cell left: $(ls -a "$T/k/cells")"; else ok; fi
expect_eq "$(tsv_rows "$T/k/results.tsv" | tail -n +2 | wc -l)" 16 "resume: no half-counted cell"

# ---- emit ------------------------------------------------------------------------------------
expect_exit 0 "emit slurm" $S $GRID --steps 10 --out "$T/a" --emit slurm
expect_exit 0 "slurm script: bash -n" bash -n "$T/a/sweep.slurm"
expect_grep '^#SBATCH --array=0-7$' "$T/a/sweep.slurm" "slurm: one task per cell"
for c in $(cat "$T/a/cells.txt"); do
    expect_eq "$(grep -c "^  $c\$" "$T/a/sweep.slurm")" 1 "slurm names $c once"
done
expect_eq "$(grep -c '^  a' "$T/a/sweep.slurm")" 8 "slurm: 8 cells, no other"
# a task of the array runs its cell (task 3 here, already finished: a no-op)
expect_exit 0 "slurm task" env SLURM_ARRAY_TASK_ID=3 bash "$T/a/sweep.slurm"
expect_exit 0 "emit parallel" $S $GRID --steps 10 --out "$T/a" --emit parallel
expect_eq "$(wc -l <"$T/a/jobs.txt")" 8 "parallel: a line per cell"
expect_eq "$(sort "$T/a/jobs.txt" | uniq | wc -l)" 8 "parallel: each once"
expect_exit 2 "emit nonsense" $S $GRID --steps 10 --out "$T/a" --emit pbs

# ---- the collector flags a missing cell ---------------------------------------------------------
rm "$T/a/cells/a1_m20_d3_mos.tsv"
expect_exit 0 "collect" $S --out "$T/a" collect
expect_grep '7 of 8 cells .* 1 missing' "$T/err" "collect: the count"
expect_grep '^  a1_m20_d3_mos missing$' "$T/err" "collect: names the missing cell"
expect_grep '^a1_m20_d3_mos missing$' "$T/a/missing.txt" "missing.txt"
expect_eq "$(tsv_rows "$T/a/results.tsv" | tail -n +2 | wc -l)" 14 "collect: 7 cells x 2 seeds"
expect_exit 2 "collect elsewhere" $S --out "$T/none" collect
expect_exit 2 "unknown cell" $S --out "$T/a" cell a9_m1_d1_x
finish
