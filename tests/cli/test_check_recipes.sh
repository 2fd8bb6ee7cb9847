#!/bin/sh
# scripts/check-recipes.sh (make lint): an awk program doing arithmetic on
# results in a recipe fails it, naming the file and line; selection,
# joining and formatting pass; a "# check-recipes: allow REASON" line
# directly above an awk call (or in a .awk file's leading comments) lets it
# through and --list shows it; the tree as committed passes.
. tests/cli/lib.sh
C=scripts/check-recipes.sh
q="'"
w() { printf '%s\n' "$@" >"$T/$f"; }
f=sum.sh; w '#!/bin/sh' "awk -F${q}\\t${q} ${q}{ t += \$2 } END { print t }${q} x.tsv"
expect_exit 1 "a sum" sh "$C" "$T/sum.sh"
expect_grep "sum.sh:2: awk program computes \(an arithmetic assignment" "$T/out" "the sum named with file and line"
f=ratio.sh; w '#!/bin/sh' "x=\$(awk -v a=1 -v b=2 ${q}BEGIN { print b / a }${q})"
expect_exit 1 "a ratio" sh "$C" "$T/ratio.sh"
f=thr.sh; w '#!/bin/sh' "awk ${q}/^#/ { next }" "    \$3 > t { r++ }" "    END { print r }${q} s.tsv"
expect_exit 1 "a threshold on a field, over several lines" sh "$C" "$T/thr.sh"
expect_grep "thr.sh:2: .*comparison of a field" "$T/out" "the threshold found"
f=rand.sh; w '#!/bin/sh' "awk ${q}BEGIN { srand(1); print rand() }${q}"
expect_exit 1 "a random number" sh "$C" "$T/rand.sh"
f=nr.awk; w '# nr.awk -- the NR rank' 'NR > 1 { t = 0.5 * sqrt(m + n + 1) * $2 }'
expect_exit 1 "a .awk file computing" sh "$C" "$T/nr.awk"
f=sel.sh; w '#!/bin/sh' "awk -F${q}\\t${q} -v c=rank ${q}/^#/ { next } !h { for (i = 1; i <= NF; i++) if (\$i == c) k = i; h = 1; next }" \
    "    \$1 == \"mos\" && \$2 != \"-\" { n++; printf \"%s %.4g\\n\", \$k, \$k }${q} x.tsv" \
    "awk ${q}/^[0-9]+ - [0-9]+\$/ { print \"a - b\" }${q} y"
expect_exit 0 "selection, counting, formats, a regex and a string with operators" sh "$C" "$T/sel.sh"
f=ok.sh; w '#!/bin/sh' '# check-recipes: allow the mean over seeds' "awk ${q}{ s += \$2; n++ } END { print s / n }${q} x.tsv"
expect_exit 0 "allowed with a reason" sh "$C" "$T/ok.sh"
expect_exit 0 "--list" sh "$C" --list "$T/ok.sh"
expect_grep "ok.sh:3: allowed \(the mean over seeds\)" "$T/out" "--list shows the allowance and its reason"
f=far.sh; w '#!/bin/sh' '# check-recipes: allow the mean over seeds' 'echo other' "awk ${q}{ s += \$2 }${q} x.tsv"
expect_exit 1 "an allowance not directly above does not count" sh "$C" "$T/far.sh"
expect_exit 0 "the committed recipes and plots" sh "$C"
# issue 26: every computation the reports state is a tool's (sbw-series,
# rank_bound); what is still allowed is not a result (run.sh's --hours;
# issue 29: sweep_slurm.sh's time model and Slurm requests, argmax-shards.sh's
# Slurm requests)
expect_exit 0 "--list of the tree" sh "$C" --list
expect_eq "$(grep -c . "$T/out")" 4 "four allowances left in the tree"
expect_eq "$(grep -c '^experiments/argmax-shards.sh:[0-9]*: allowed (Slurm requests' "$T/out")" 1 \
    "argmax-shards.sh: the requests"
expect_eq "$(grep -c '^experiments/ptb/run.sh:[0-9]*: allowed (an option.s hours' "$T/out")" 1 "run.sh: --hours"
expect_eq "$(grep -c '^experiments/sweep_slurm.sh:[0-9]*: allowed (.*Slurm requests' "$T/out")" 2 \
    "sweep_slurm.sh: the time model, the requests"
expect_grep "^experiments/ptb/run.sh:[0-9]+: allowed \(an option's hours in seconds" "$T/out" \
    "the one left is run.sh's --hours, not a result"
finish
