#!/bin/sh
# CLI checks of sbw-rank --hidden-size, --rounded and --decay (issue 31) on
# sbw-synth lowrank outputs, whose hidden size is known by construction
# (the rank of the logits); the decay's alpha against a least-squares fit
# done here in awk on the spectrum the tool wrote.
. tests/cli/lib.sh
. tests/cli/npy.sh
R="$BIN/sbw-rank"
S="$BIN/sbw-synth"

"$S" lowrank -q --n 120 --m 200 --rank 9 --seed 3 -o "$T/lr.npy" >/dev/null || bad "synth lowrank"
"$S" lowrank -q --n 400 --m 60 --rank 7 --seed 4 -o "$T/tall.npy" >/dev/null || bad "synth tall"
"$S" dirichlet -q --n 80 --m 120 --seed 5 -o "$T/dir.npy" >/dev/null || bad "synth dirichlet"
"$S" lowrank -q --n 20 --m 200 --rank 20 --seed 6 -o "$T/few.npy" >/dev/null || bad "synth few"

expect_exit 0 "hidden-size" "$R" -q --hidden-size "$T/lr.npy"
expect_grep '^# hidden_size=9$' "$T/out" "D = 9 recovered"
expect_grep '^# hidden_status=certified$' "$T/out" "float64 outputs: certified"
expect_grep '^# hidden_precision=f64$' "$T/out" "observed precision"
expect_grep '^# center=both$' "$T/out" "double-centred by default"
expect_exit 0 "hidden-size --rounded bf16" "$R" -q --hidden-size --rounded bf16 "$T/lr.npy"
expect_grep '^# hidden_size=9$' "$T/out" "D = 9 at a declared bf16"
expect_grep '^# hidden_precision_source=--rounded$' "$T/out" "declared precision"
expect_exit 0 "hidden-size --round bf16" "$R" -q --hidden-size --round bf16 "$T/lr.npy"
expect_grep '^# hidden_size=9$' "$T/out" "D = 9 from outputs rounded to bf16"
expect_grep '^# hidden_precision=bf16$' "$T/out" "rounded outputs: bf16 observed"
expect_exit 0 "hidden-size tall (tsqr)" "$R" -q --hidden-size "$T/tall.npy"
expect_grep '^# method=tsqr$' "$T/out" "tall -> tsqr"
expect_grep '^# hidden_size=7$' "$T/out" "D = 7 through tsqr"
expect_exit 0 "hidden-size from a pipe" sh -c "cat '$T/lr.npy' | '$R' -q --hidden-size -"
expect_grep '^# hidden_size=9$' "$T/out" "D = 9 from a pipe"
expect_exit 0 "hidden-size --json" "$R" -q --json --hidden-size --decay auto "$T/lr.npy"
expect_grep '"hidden_size": ?9' "$T/out" "JSON hidden_size"
expect_grep '"decay_alpha": ?[0-9]' "$T/out" "JSON decay_alpha"

# a full-rank language: no hidden size, warned, exit 0
expect_exit 0 "hidden-size dirichlet" "$R" -q --hidden-size "$T/dir.npy"
expect_grep '^# hidden_size=-1$' "$T/out" "full rank: no hidden size"
expect_grep '^# warning=hidden_(no_drop|too_few_queries)' "$T/out" "full rank: warned"
# N = 20 queries of a D = 20 head: nothing decided
expect_exit 0 "hidden-size too few" "$R" -q --hidden-size "$T/few.npy"
expect_grep '^# hidden_size=-1$' "$T/out" "N <= D: no hidden size"
expect_grep '^# warning=hidden_too_few_queries' "$T/out" "N <= D: warned"

# --decay against an awk least-squares fit of the spectrum's ln sigma on ln i
expect_exit 0 "decay 2:9" "$R" -q --center --decay 2:9 --spectrum "$T/spec.tsv" "$T/lr.npy"
alpha=$(sed -n 's/^# decay_alpha=//p' "$T/out")
want=$(awk -F '\t' '/^#/ || $1 == "index" { next }
    $1 >= 1 && $1 <= 8 { x = log($1 + 1); y = log($2); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
    END { printf "%.17g", -(n * sxy - sx * sy) / (n * sxx - sx * sx) }' "$T/spec.tsv")
expect_num_near "$alpha" "$want" 1e-9 "decay alpha = awk's fit"
expect_grep '^# decay_lo=2$' "$T/out" "decay range lo"
expect_grep '^# decay_points=8$' "$T/out" "decay points"
expect_exit 0 "decay past the rank" "$R" -q --center --decay 1:30 "$T/lr.npy"
expect_grep '^# warning=decay_beyond_rank' "$T/out" "past the rank: warned"

# usage and data errors: one line, exit 2 or 1
expect_exit 2 "--rounded without --hidden-size" "$R" -q --rounded f16 "$T/lr.npy"
expect_grep 'does not apply' "$T/err" "--rounded alone"
expect_exit 2 "--rounded f8" "$R" -q --hidden-size --rounded f8 "$T/lr.npy"
expect_grep "'f8' is not a precision" "$T/err" "bad precision named"
expect_exit 2 "--round f8" "$R" -q --round f8 "$T/lr.npy"
expect_exit 2 "--round randomized" "$R" -q --round f16 --method randomized --top 5 "$T/lr.npy"
expect_exit 2 "--hidden-size --exp" "$R" -q --hidden-size --exp "$T/lr.npy"
expect_exit 2 "--hidden-size randomized" "$R" -q --hidden-size --method randomized --top 5 "$T/lr.npy"
expect_exit 2 "--decay 3:4" "$R" -q --decay 3:4 "$T/lr.npy"
expect_exit 2 "--decay 1:9999" "$R" -q --decay 1:9999 "$T/lr.npy"
expect_grep 'needs at least 3 of the 120' "$T/err" "range past k"
npy_header '<f8' '(3, 4)' "$T/zero.npy"
head -c 96 /dev/zero >>"$T/zero.npy"
expect_exit 1 "--decay over a zero value" "$R" -q --decay 1:3 "$T/zero.npy"
expect_grep 'singular value 1 is 0' "$T/err" "zero value named"

# experiments/hidden/run.sh: --help, bad options refused before any work
expect_exit 0 "hidden recipe --help" sh experiments/hidden/run.sh --help
expect_grep 'usage: experiments/hidden/run.sh' "$T/out" "recipe usage"
expect_exit 2 "hidden recipe --prec f8" sh experiments/hidden/run.sh --prec f8 -o "$T/h"
expect_exit 2 "hidden recipe --heads lms" sh experiments/hidden/run.sh --heads lms -o "$T/h"
expect_exit 2 "hidden recipe --n x" sh experiments/hidden/run.sh --n 8,x -o "$T/h"
expect_absent "$T/h" "nothing made on a usage error"
finish
