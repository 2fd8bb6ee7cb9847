#!/bin/sh
# experiments/argmax-shards.sh -- a large head's scan by sbw-argmax as Slurm
# jobs (issue 29): a job array of N shards (sbw-argmax --shard I/N, task I
# checks the I-th of N shares of the list: blocks I, I + N, ...) and a merge job after
# it (--dependency=afterok: it runs only when every shard succeeded) that
# writes, with sbw-argmax --merge, the table the unsharded run would (the
# same bytes but for its # command= line and seconds).
#
# usage: experiments/argmax-shards.sh --shards N --out DIR [options] [--] ARGMAX-ARGS... W.npy
#   --shards N     the array's tasks (1 <= N <= the words to check)
#   --out DIR      where the jobs, the shards' tables and the result go
#   --threads T    CPUs per task (--cpus-per-task, sbw-argmax --threads) [1]
#   --time MIN     each shard's --time in minutes [from the calibration]
#   --mem MIB      each shard's --mem in MiB [from the calibration]
#   ARGMAX-ARGS    sbw-argmax's options for the run (--bias, --vocab,
#                  --words, --max-prob, --tol, ...; not -o, --json,
#                  --threads, --shard, --merge, --truncation) and the head
#
# It writes DIR/slurm/: shards.sbatch (the array), merge.sbatch, submit.sh
# (sbatch --parsable for the array, then the merge with
# --dependency=afterok:ARRAY --kill-on-invalid-dep=yes; the ids to
# jobs.tsv; it refuses to run twice) and logs/; the jobs write
# DIR/shards/shard-I.tsv and DIR/argmax.tsv.  The jobs run the tools of this
# clone (SBW_BIN, default bin/) in the folder this script was started from,
# so relative paths in ARGMAX-ARGS mean what they mean here (and the
# table's # file= line is the one a run from here writes); both must be on
# a file system the compute nodes see.
#
# The requests.  A calibration here runs the first shard of 8 N
# (sbw-argmax --shard 1/8N, about an eighth of a shard's words, spread over
# the list like the shards; 1/N when the list has fewer than 8 N blocks)
# under GNU time: a shard's --time is 3 x F x its elapsed seconds, F the
# shard's words over the calibration's (start-up included, which errs long), at least 5
# minutes; its --mem 1.25 x (its peak RSS + 64 MiB): the whole head, its
# normalised copy and the LP workspaces are in the calibration already,
# and a shard's rows are a few MiB more.  The merge holds every row as
# text: --mem 1.25 x (64 MiB + 128 bytes a cell), --time 5 minutes plus 3 x
# a microsecond a cell.  The calibrating machine should be like the compute
# nodes; --time and --mem override.  sbatch's own variables
# (SBATCH_ACCOUNT, SBATCH_PARTITION, ...) reach both jobs.
#
# Example (256k words, 64 shards of 4 CPUs):
#   experiments/argmax-shards.sh --shards 64 --threads 4 --out /scratch/$USER/scan \
#       --bias b.npy --vocab vocab.txt W.npy
#   bash /scratch/$USER/scan/slurm/submit.sh
# A failed shard (its log in slurm/logs/shard-I.log, I from 0) cancels the
# merge; resubmit that task alone and then the merge:
#   sbatch --array=I DIR/slurm/shards.sbatch; sbatch --dependency=afterok:ID DIR/slurm/merge.sbatch
set -eu
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/.."
. scripts/tsv.sh
. scripts/recipe.sh
. experiments/sweep_slurm.sh
if [ -n "${SBW_BIN:-}" ]; then B=$(recipe_abs "$SBW_BIN"); else B=$(pwd)/bin; fi
die() {
    echo "argmax-shards.sh: $*" >&2
    exit 2
}
need() { [ $# -ge 2 ] || die "$1 needs a value"; }
count() { printf '%s\n' "$2" | grep -Eqx '[1-9][0-9]{0,8}' || die "$1: '$2' is not a whole number >= 1"; }
shq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
NSH="" OUT="" THREADS=1 TIME="" MEM=""
while [ $# -gt 0 ]; do
    case $1 in
    --shards) need "$@"; count "$1" "$2"; NSH=$2; shift 2 ;;
    --out) need "$@"; OUT=$(recipe_abs "$2"); shift 2 ;;
    --threads) need "$@"; count "$1" "$2"; THREADS=$2; shift 2 ;;
    --time) need "$@"; count "$1" "$2"; TIME=$2; shift 2 ;;
    --mem) need "$@"; count "$1" "$2"; MEM=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    *) break ;;
    esac
done
[ -n "$NSH" ] || die "--shards N is required (see --help)"
[ -n "$OUT" ] || die "--out DIR is required (see --help)"
[ $# -ge 1 ] || die "no head: give sbw-argmax's options and W.npy after the script's"
for a in "$@"; do
    case $a in
    -o | --output | --output=* | --json | --threads | --threads=* | --shard | --shard=* | --merge | --truncation | --truncation=*)
        die "$a: the script sets it (see --help)" ;;
    esac
done
case $OUT in *'"'* | *%*) die "--out: a folder with \" or % cannot be given to sbatch --output" ;; esac
S=$OUT/slurm
[ ! -e "$S/jobs.tsv" ] || die "$S was submitted already (jobs.tsv): give another --out"

# the calibration: shard 1 of 8N here (of N when the list has too few
# blocks for 8N shares: sbw-argmax says so and exits 2), under GNU time
[ -x /usr/bin/time ] || { echo "argmax-shards.sh: the calibration needs GNU time (/usr/bin/time; scripts/deps.sh --slurm)" >&2 && exit 1; }
mkdir -p "$S/logs" "$OUT/shards"
cal=$S/calibration
rm -f "$cal.tsv" "$cal.time" "$cal.err"
cal_cleanup() { rm -f "$cal.tsv" "$cal.time" "$cal.err"; }
recipe_traps argmax-shards.sh cal_cleanup
# calibrate K ARGMAX-ARGS...: shard 1 of K into $cal.tsv, timed, stderr kept
calibrate() {
    ck=$1
    shift
    (cd "$RECIPE_CWD" && timed "$cal.time" "$B/sbw-argmax" --shard "1/$ck" --threads "$THREADS" -q \
        -o "$cal.tsv" "$@") 2>"$cal.err"
}
K=$((8 * NSH))
rc=0
calibrate $K "$@" || rc=$?
if [ $rc = 2 ] && grep -q 'block(s) of' "$cal.err"; then
    K=$NSH rc=0
    calibrate $K "$@" || rc=$?
fi
if [ $rc != 0 ]; then
    cat "$cal.err" >&2
    echo "argmax-shards.sh: the calibration (sbw-argmax --shard 1/$K, above) failed: nothing written" >&2
    exit 1
fi
WORDS=$(tsv_meta "$cal.tsv" shard_of)
CAL_WORDS=$(tsv_meta "$cal.tsv" checked)
NCOL=$(tsv_rows "$cal.tsv" | head -n 1 | awk -F'\t' '{ print NF }')
SECS=$(time_field "$cal.time" 1) KIB=$(time_field "$cal.time" 2)
# check-recipes: allow Slurm requests from the calibration (scheduling, not a result)
REQ=$(awk -v s="$SECS" -v kib="$KIB" -v w="$WORDS" -v c="$NCOL" -v cw="$CAL_WORDS" -v n="$NSH" '
    function up(x) { return (x == int(x)) ? x : int(x) + 1 }
    BEGIN {
        f = (w / n) / (cw > 0 ? cw : 1)
        t = up(3 * f * s / 60); if (t < 5) t = 5
        cells = w * c
        printf "%d %d %d %d %.3g\n", t, up(1.25 * (kib / 1024 + 64)), 5 + up(3 * cells / 6e7),
            up(1.25 * (64 + cells * 128 / 1048576)), f * s
    }')
read -r T_SH M_SH T_MG M_MG PRED <<EOF
$REQ
EOF
[ -z "$TIME" ] || T_SH=$TIME
[ -z "$MEM" ] || M_SH=$MEM

# the array: task K (0-based) is shard K + 1 of N
ARGS=""
for a in "$@"; do ARGS="$ARGS $(shq "$a")"; done
# shellcheck disable=SC2034 # sbatch_head (sweep_slurm.sh) reads $out
out=$OUT
{
    echo "#!/bin/bash"
    echo "# Slurm job array: sbw-argmax's scan in $NSH shards of $WORDS words (experiments/argmax-shards.sh;"
    echo "# a shard predicted $PRED s from the calibration).  Submitted by submit.sh, before merge.sbatch."
    sbatch_head argmax-shards "$T_SH" "$M_SH" "$S/logs/shard-%a.log" "$NSH"
    echo "set -eu"
    echo "cd $(shq "$RECIPE_CWD")"
    echo "I=\$((SLURM_ARRAY_TASK_ID + 1))"
    echo "exec $(shq "$B/sbw-argmax") --shard \"\$I/$NSH\" --threads $THREADS -q -o $(shq "$OUT/shards")/shard-\"\$I\".tsv$ARGS"
} >"$S/shards.sbatch.tmp"
mv "$S/shards.sbatch.tmp" "$S/shards.sbatch"
{
    echo "#!/bin/bash"
    echo "# Slurm job: the merge of the $NSH shard tables into $OUT/argmax.tsv (experiments/argmax-shards.sh)."
    echo "# Submitted by submit.sh after every shard succeeded (afterok)."
    sbatch_head argmax-merge "$T_MG" "$M_MG" "$S/logs/merge.log"
    echo "set -eu"
    echo "cd $(shq "$RECIPE_CWD")"
    printf 'exec %s --merge --threads %s -q -o %s' "$(shq "$B/sbw-argmax")" "$THREADS" "$(shq "$OUT/argmax.tsv")"
    i=1
    while [ "$i" -le "$NSH" ]; do
        printf ' \\\n    %s' "$(shq "$OUT/shards/shard-$i.tsv")"
        i=$((i + 1))
    done
    echo
} >"$S/merge.sbatch.tmp"
mv "$S/merge.sbatch.tmp" "$S/merge.sbatch"
{
    echo "#!/bin/bash"
    echo "# Submits sbw-argmax's sharded scan (experiments/argmax-shards.sh): the array of $NSH shards, then"
    echo "# the merge after it (afterok; cancelled if a shard fails).  The ids go to jobs.tsv."
    echo "# sbatch's own variables apply (SBATCH_ACCOUNT, SBATCH_PARTITION, ...).  Run once."
    echo "set -eu"
    echo "cd $(shq "$S")"
    echo "if [ -e jobs.tsv ]; then"
    echo "    echo \"submit.sh: already submitted (jobs.tsv)\" >&2"
    echo "    exit 1"
    echo "fi"
    slurm_submit_fn
    echo "A=\$(submit shards.sbatch)"
    echo "submit merge.sbatch --dependency=afterok:\$A --kill-on-invalid-dep=yes >/dev/null"
    echo "echo \"submitted the array \$A and its merge (ids in $(shq "$S/jobs.tsv")); the result: $(shq "$OUT/argmax.tsv")\""
} >"$S/submit.sh.tmp"
mv "$S/submit.sh.tmp" "$S/submit.sh"
echo "wrote $S: an array of $NSH shards ($WORDS words; --time $T_SH min, --mem $M_SH MiB each) and its merge" >&2
echo "submit: bash $(shq "$S/submit.sh")" >&2
