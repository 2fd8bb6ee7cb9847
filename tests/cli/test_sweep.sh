#!/bin/sh
# CLI checks of experiments/sweep.sh on a tiny grid: it finishes with a
# results table, figures and a report; killed half-way and rerun, it keeps
# the finished cells and redoes only the rest; run, plan and --emit need
# only --out; --emit slurm calibrates, and its job files run the cells
# there; the collector lists a deleted cell.
# OUT/settings is read as data (a command in it never runs, a damaged one
# is exit 1); a list with a space is refused (exit 2); a relative --out
# with a space and a comma is the caller's, and the Slurm and parallel
# files run there; cells keep sbw-fit's command and warning lines and
# results.tsv marks the fits still improving; SIGTERM to sweep.sh itself
# stops every cell and sbw-fit and leaves no temporary (exit 143).
. tests/cli/lib.sh
. tests/cli/recipe.sh
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

# ---- emit; only --out resumes ------------------------------------------------------------------
# the settings are the folder's: run, plan and --emit need only --out
expect_exit 0 "run with only --out" $S --out "$T/a" run
expect_grep '8 cells \(8 done, 0 to run' "$T/err" "run with only --out: the folder's sweep"
expect_exit 0 "plan with only --out" $S --out "$T/a" plan
expect_exit 0 "run with --out and the same settings" $S --out "$T/a" --steps 10 --alpha 0.1,1 run
expect_exit 0 "emit parallel with only --out" $S --out "$T/a" --emit parallel
expect_eq "$(wc -l <"$T/a/jobs.txt")" 8 "parallel: a line per cell"
expect_eq "$(sort "$T/a/jobs.txt" | uniq | wc -l)" 8 "parallel: each once"
expect_exit 2 "emit nonsense" $S --out "$T/a" --emit pbs
# --emit slurm calibrates here first (what it measures: tests/cli/test_sweep_slurm.sh)
expect_exit 0 "emit slurm, every cell finished" $S --out "$T/a" --emit slurm
expect_grep 'every cell .* is finished; nothing to submit' "$T/err" "slurm: nothing to submit"
expect_eq "$(ls "$T/a/slurm" | grep -c '\.sbatch$')" 0 "slurm: no job file"
expect_eq "$(tsv_rows "$T/a/calibration.tsv" | tail -n +2 | cut -f1-3 | tr '\t\n' ' :')" \
    "sbw-synth - 0:sbw-fit softmax 2:sbw-fit softmax 3:sbw-fit mos 2:sbw-fit mos 3:" "calibration: each head at both D"
expect_exit 2 "emit slurm with --threads 0" $S $GRID --steps 10 --threads 0 --out "$T/t0" --emit slurm
expect_grep 'threads 0 .*asks Slurm for nothing' "$T/err" "--threads 0: said"

# ---- the collector flags a missing cell ---------------------------------------------------------
rm "$T/a/cells/a1_m20_d3_mos.tsv"
expect_exit 0 "collect" $S --out "$T/a" collect
expect_grep '7 of 8 cells .* 1 missing' "$T/err" "collect: the count"
expect_grep '^  a1_m20_d3_mos missing$' "$T/err" "collect: names the missing cell"
expect_grep '^a1_m20_d3_mos missing$' "$T/a/missing.txt" "missing.txt"
expect_eq "$(tsv_rows "$T/a/results.tsv" | tail -n +2 | wc -l)" 14 "collect: 7 cells x 2 seeds"
expect_exit 2 "collect elsewhere" $S --out "$T/none" collect
expect_exit 2 "unknown cell" $S --out "$T/a" cell a9_m1_d1_x

# ---- settings are data, lists are checked -------------------------------------------------------
cp "$T/a/settings" "$T/settings.good"
for evil in 'ALPHAS=0.1,1; touch "$T/pwned"' 'ALPHAS=$(touch pwned)' 'touch pwned' 'ALPHAS=0.1,1
touch pwned' 'PATH=/nowhere'; do
    { printf '%s\n' "$evil"; grep -v '^ALPHAS=' "$T/settings.good"; } >"$T/a/settings"
    expect_exit 1 "settings with code: $(printf '%s' "$evil" | head -n 1)" $S --out "$T/a" collect
    expect_grep 'settings: line [12][: ].*damaged settings file' "$T/err" "settings with code: the line named"
    if [ -e "$T/pwned" ] || [ -e "$T/a/pwned" ] || [ -e pwned ]; then bad "settings ran code"; rm -f "$T/pwned" "$T/a/pwned" pwned; else ok; fi
done
{ cat "$T/settings.good"; echo 'K=3'; } >"$T/a/settings"
expect_exit 1 "settings: a key twice" $S --out "$T/a" collect
grep -v '^HEADS=' "$T/settings.good" >"$T/a/settings"
expect_exit 1 "settings: a key missing" $S --out "$T/a" collect
expect_exit 1 "run on damaged settings" $S --out "$T/a" $GRID --steps 10 run
cp "$T/settings.good" "$T/a/settings"
expect_exit 0 "collect after the repair" $S --out "$T/a" collect
expect_exit 2 "--alpha with a space" $S --alpha "0.1 1" --out "$T/typo" plan
expect_grep "^sweep.sh: --alpha: '0.1 1' is not a comma-separated list" "$T/err" "--alpha typo: said"
if [ -e "$T/typo" ]; then bad "--alpha typo: a folder planned"; else ok; fi
expect_exit 2 "--alpha 0" $S --alpha 0,1 --out "$T/typo" plan
expect_exit 2 "--d empty item" $S --d 2,,3 --out "$T/typo" plan
expect_exit 2 "--heads unknown" $S --heads softmax,gpt --out "$T/typo" plan
expect_exit 2 "--heads with code" $S --heads 'softmax;id' --out "$T/typo" plan
expect_exit 2 "--m not a number" $S --m 1e3 --out "$T/typo" plan

# ---- a relative --out with a space and a comma; still improving ------------------------------------
ROOT=$(pwd)
G2="--alpha 0.1 --m 20 --d 2 --heads softmax,mos --k 2 --seeds 2 --n 40 --steps 100"
# shellcheck disable=SC2086
expect_exit 0 "relative --out with a space and a comma" sh -c 'cd "$1" && shift && sh "$@"' sh "$T" \
    "$ROOT/$S" $G2 --out "r dir,1" run
W=$T/r\ dir,1
if [ -s "$W/results.tsv" ] && [ ! -e "$ROOT/r dir,1" ]; then ok; else bad "relative --out: not in the caller's folder"; fi
expect_eq "$(tsv_rows "$W/results.tsv" | head -n 1 | cut -f13)" still_improving "results: still_improving column"
expect_eq "$(tsv_rows "$W/results.tsv" | tail -n +2 | cut -f13 | sort -u | tr '\n' ' ')" "1 " \
    "results: 100 steps are still improving (every fit)"
expect_grep '^# warning=fit_still_improving: .*a0.1_m20_d2_softmax \(seeds 1,2\) a0.1_m20_d2_mos \(seeds 1,2\)$' \
    "$W/results.tsv" "results: the cells still improving named"
expect_grep 'Not converged' "$W/report.md" "report: the cells still improving"
c=$W/cells/a0.1_m20_d2_mos.tsv
expect_eq "$(grep -c '^# command=.*sbw-fit .*--model mos .*--seed [12] ' "$c")" 2 "cell: sbw-fit's command per seed"
expect_eq "$(grep -c '^# warning=fit_still_improving: stopped by --steps 100 ' "$c")" 2 "cell: sbw-fit's warning per seed"
# the emitted job files run there: a language and a cell removed, remade
# by the language job and the array's task run by hand
rm "$W/lang/a0.1_m20.npy" "$W/cells/a0.1_m20_d2_mos.tsv"
expect_exit 0 "emit slurm (a space and a comma)" sh "$ROOT/$S" --out "$W" --emit slurm
for f in lang_a0.1_m20.sbatch fit_a0.1_m20_1.sbatch submit.sh; do
    expect_exit 0 "slurm $f: bash -n" bash -n "$W/slurm/$f"
done
expect_grep '^#SBATCH --output="'"$W"'/slurm/logs/fit_a0.1_m20_1-%a.log"$' "$W/slurm/fit_a0.1_m20_1.sbatch" \
    "slurm: the log path quoted"
expect_exit 0 "slurm language job in the folder" bash "$W/slurm/lang_a0.1_m20.sbatch"
expect_exit 0 "slurm task in the folder" env SLURM_ARRAY_TASK_ID=0 bash "$W/slurm/fit_a0.1_m20_1.sbatch"
expect_exit 0 "the task's cell finished" test -s "$W/cells/a0.1_m20_d2_mos.tsv"
# shellcheck disable=SC2086
expect_exit 0 "emit parallel (a space and a comma)" sh "$ROOT/$S" $G2 --out "$W" --emit parallel
expect_exit 0 "a parallel job line runs" sh -c "$(head -n 1 "$W/jobs.txt")"
expect_grep 'cells\] a0.1_m20_d2_softmax done' "$T/err" "the parallel job ran its cell"

# ---- SIGTERM to sweep.sh itself (not its group) -------------------------------------------------
# shellcheck disable=SC2086
sh $S $GRID --steps 2000000 --out "$T/k2" -j 2 run >"$T/k2.out" 2>&1 &
pid=$!
fits_running() { ls -a "$T/k2/cells" 2>/dev/null | grep -q '\.fit$'; }
wait_for fits_running || bad "SIGTERM: no sbw-fit started"
kill -TERM "$pid"
wait "$pid"
expect_eq "$?" 143 "SIGTERM: exit 143"
expect_grep '^sweep.sh: terminated' "$T/k2.out" "SIGTERM: said"
expect_none_left "$T/k2" "SIGTERM: cells and sbw-fit"
expect_eq "$(ls -a "$T/k2/cells" | grep -c '^\.[a-z]')" 0 "SIGTERM: no temporary"
expect_eq "$(ls "$T/k2/cells" | grep -c '\.err$')" 0 "SIGTERM: no cell called failed"
finish
