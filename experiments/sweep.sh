#!/bin/sh
# experiments/sweep.sh -- the LMS paper's synthetic sweep (section 5.1,
# Figures 2, 3, 6-8): heads fitted to Dirichlet(alpha) languages over a grid
# of alpha, vocabulary size M and embedding size D, several seeds per cell.
#
#   experiments/sweep.sh [options] run        run the missing cells here (-j J at once), then collect
#   experiments/sweep.sh [options] plan       write the settings and the cell list, run nothing
#   experiments/sweep.sh [options] --emit slurm      Slurm jobs for the unfinished cells (OUT/slurm/:
#                                             submit with bash OUT/slurm/submit.sh; docs/cluster.md)
#   experiments/sweep.sh [options] --emit parallel   a GNU parallel job list (one line per cell)
#   experiments/sweep.sh [options] calibrate  measure the time model here (--emit slurm does it once)
#   experiments/sweep.sh --out DIR collect    merge the cells, list missing/failed/queued ones, figures, report
#   experiments/sweep.sh --out DIR cell NAME  run one cell (what run, Slurm and parallel call)
#   experiments/sweep.sh --out DIR lang NAME  make one language, aALPHA_mM (a Slurm language job)
#
# A cell is one (alpha, M, D, head): it fits the head once per seed to the
# language of (alpha, M) -- made by the first cell that needs it; sbw-synth
# is deterministic and writes atomically, so cells never depend on each
# other -- and writes cells/NAME.tsv (one row per seed) under a temporary
# name, renamed when every seed is done.  A finished cell is skipped; a
# cell killed half-way left only its temporary and is redone whole, never
# half-counted.  Only the tools are chained here: sbw-synth, sbw-fit (whose
# final kl_mean and mode_match are recomputed in float64 against the true
# P*), sbw-plot (the figures, and the seeds' mean and sd).
#
# A cell's TSV keeps, for each seed, sbw-fit's "# command=" line and its
# "# warning=" lines; results.tsv has a column still_improving (1 when that
# fit carried sbw-fit's fit_still_improving warning: stopped by --steps
# while its mean KL was still falling) and a "# warning=" line naming those
# cells, so a figure's point that is not converged can be told.
#
# The plan is kept in OUT/settings as key=value lines; every command reads
# it back as data (each key known, each value checked as the option is),
# never as shell code, so run, plan, --emit and collect need only --out to
# go on with a sweep (a setting given that differs is refused, exit 2).
#
# --emit slurm (experiments/sweep_slurm.sh says how): a job per language
# not yet made, job arrays of the unfinished cells split by language and
# cost, each after its language's job (afterok); --time from a time model
# measured once by timed calibration fits here (OUT/timemodel, data, with
# OUT/calibration.tsv), --mem from sbw-fit's own memory plan (--dry-run),
# --cpus-per-task = --threads (T >= 1).  collect names queued cells and
# failed ones with Slurm's state (sacct, or the task's log), and a cell
# whose language job failed.  Emitting again after the jobs ended covers
# the cells still unfinished (the earlier files move to OUT/slurm.N).
#
# --out may be relative (to the folder sweep.sh is started in) and hold
# spaces and commas, not a newline.  SIGINT or
# SIGTERM stops every running cell and its tools, removes their
# temporaries and exits 130 or 143; a rerun redoes only the unfinished
# cells.
#
# Options (lists are comma-separated, no spaces):
#   --alpha LIST   [0.01,0.1,1]            --m LIST      [100,1000,10000]
#   --d LIST       [2,5,10,20,50,100]      --heads LIST  [softmax,mos,lms,plif]
#                  (heads: softmax, sigsoftmax, moc, mos, lms, plif, mos+plif)
#   --n N          contexts per language [2000]; --paper sets the paper's 100000
#   --seeds S      fits per cell [3]       --steps S     Adam steps per fit [300]
#   --k K          MoS components / LMS hidden units [10]; --knots K PLIF intervals [1000]
#   --threads T    threads per fit [1]     -j J          cells at once (run) [2]
#   --out DIR      [out/sweep]
#
# Environment: SBW_BIN, the folder of the sbw tools [bin/ of this clone].
set -eu
RECIPE_CWD=$(pwd)
cd "$(dirname "$0")/.."
. scripts/tsv.sh
. scripts/recipe.sh
. experiments/sweep_slurm.sh
if [ -n "${SBW_BIN:-}" ]; then B=$(recipe_abs "$SBW_BIN"); else B=$(pwd)/bin; fi
SELF=$(pwd)/experiments/sweep.sh

ALPHAS=0.01,0.1,1
MS=100,1000,10000
DS=2,5,10,20,50,100
HEADS=softmax,mos,lms,plif
N=2000
SEEDS=3
STEPS=300
K=10
KNOTS=1000
THREADS=1
JOBS=2
OUT=out/sweep
EMIT=""
die() {
    echo "sweep.sh: $*" >&2
    exit 2
}
need() { [ $# -ge 2 ] || die "$1 needs a value"; }
# given KEY: the setting KEY was given on the command line (held against a
# planned folder's settings by resume)
GIVEN=" "
given() { case $GIVEN in *" $1 "*) ;; *) GIVEN="$GIVEN$1 " ;; esac; }
while [ $# -gt 0 ]; do
    case $1 in
    --alpha) need "$@"; ALPHAS=$2; given ALPHAS; shift 2 ;;
    --m) need "$@"; MS=$2; given MS; shift 2 ;;
    --d) need "$@"; DS=$2; given DS; shift 2 ;;
    --heads) need "$@"; HEADS=$2; given HEADS; shift 2 ;;
    --n) need "$@"; N=$2; given N; shift 2 ;;
    --paper) N=100000; given N; shift ;;
    --seeds) need "$@"; SEEDS=$2; given SEEDS; shift 2 ;;
    --steps) need "$@"; STEPS=$2; given STEPS; shift 2 ;;
    --k) need "$@"; K=$2; given K; shift 2 ;;
    --knots) need "$@"; KNOTS=$2; given KNOTS; shift 2 ;;
    --threads) need "$@"; THREADS=$2; given THREADS; shift 2 ;;
    -j) need "$@"; JOBS=$2; shift 2 ;;
    --out) need "$@"; OUT=$(recipe_abs "$2"); shift 2 ;;
    --emit) need "$@"; EMIT=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
    esac
done
CMD=${1:-}
[ -n "$EMIT" ] && CMD=emit
case $OUT in *'
'*) die "--out: a folder name with a newline is not supported (cells are listed one a line)" ;; esac
words() { echo "$1" | tr ',' ' '; }

# check KEY VALUE: nothing (0) when VALUE is what KEY takes, else the
# problem on stdout (1).  The one rule for options and for OUT/settings.
check() {
    case $1 in
    ALPHAS) re='^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$' what="a positive number" ;;
    MS | DS) re='^[1-9][0-9]*$' what="a positive whole number" ;;
    HEADS) re='^(softmax|sigsoftmax|moc|mos|lms|plif|mos\+plif)$' what="a head (softmax, sigsoftmax, moc, mos, lms, plif, mos+plif)" ;;
    N | SEEDS | STEPS | K | KNOTS) re='^[1-9][0-9]*$' what="a positive whole number" ;;
    THREADS | JOBS) re='^[0-9]+$' what="a whole number" ;;
    *) echo "unknown setting '$1'" && return 1 ;;
    esac
    case $1 in ALPHAS | MS | DS | HEADS) list=1 ;; *) list=0 ;; esac
    if [ $list = 0 ]; then
        printf '%s\n' "$2" | grep -Eqx -- "$re" && [ "$(printf '%s' "$2" | wc -l)" = 0 ] && return 0
        echo "'$2' is not $what" && return 1
    fi
    case $2 in '' | *[!-+.,0-9a-zA-Z]* | ,* | *, | *,,*)
        echo "'$2' is not a comma-separated list (no spaces, no empty item) of ${what#a }s" && return 1 ;;
    esac
    for item in $(words "$2"); do
        printf '%s\n' "$item" | grep -Eqx -- "$re" || { echo "'$item' in '$2' is not $what" && return 1; }
        [ "$1" != ALPHAS ] || awk -v a="$item" 'BEGIN { exit !(a > 0) }' || { echo "alpha '$item' is not above 0" && return 1; }
    done
    return 0
}
# the options' values, each as check says
for kv in "ALPHAS --alpha $ALPHAS" "MS --m $MS" "DS --d $DS" "HEADS --heads $HEADS" "N --n $N" \
    "SEEDS --seeds $SEEDS" "STEPS --steps $STEPS" "K --k $K" "KNOTS --knots $KNOTS" \
    "THREADS --threads $THREADS" "JOBS -j $JOBS"; do
    key=${kv%% *} rest=${kv#* }
    opt=${rest%% *} val=${rest#* }
    why=$(check "$key" "$val") || die "$opt: $why"
done

# ---- the plan: settings and cells ------------------------------------------------------
settings() {
    printf 'ALPHAS=%s\nMS=%s\nDS=%s\nHEADS=%s\nN=%s\nSEEDS=%s\nSTEPS=%s\nK=%s\nKNOTS=%s\nTHREADS=%s\n' \
        "$ALPHAS" "$MS" "$DS" "$HEADS" "$N" "$SEEDS" "$STEPS" "$K" "$KNOTS" "$THREADS"
}
cells() {
    for a in $(words "$ALPHAS"); do for m in $(words "$MS"); do for d in $(words "$DS"); do
        for h in $(words "$HEADS"); do echo "a${a}_m${m}_d${d}_$h"; done
    done; done; done
}
# plan: OUT/settings and OUT/cells.txt; a folder holding another sweep's
# cells is refused rather than mixed.
plan() {
    mkdir -p "$OUT/cells" "$OUT/lang"
    settings >"$OUT/settings.new"
    if [ -f "$OUT/settings" ] && ! cmp -s "$OUT/settings" "$OUT/settings.new"; then
        rm -f "$OUT/settings.new"
        die "$OUT holds a sweep with other settings ($(tr '\n' ' ' <"$OUT/settings")); use another --out"
    fi
    mv "$OUT/settings.new" "$OUT/settings"
    cells >"$OUT/cells.txt"
}
# load: OUT/settings read back as data: every line KEY=VALUE with a known
# KEY (each once, all ten there) and a VALUE as check says; anything else is
# a damaged file (exit 1), and nothing in it is ever run.
SETTINGS_KEYS=" ALPHAS MS DS HEADS N SEEDS STEPS K KNOTS THREADS "
load() {
    f="$OUT/settings"
    [ -f "$f" ] || die "$f: no sweep planned there (run plan or run first)"
    seen=" " ln=0
    while IFS= read -r line || [ -n "$line" ]; do
        ln=$((ln + 1))
        key=${line%%=*} val=${line#*=}
        case $line in *=*) ;; *) bad_settings "$f" "line $ln is not KEY=VALUE" ;; esac
        case $SETTINGS_KEYS in *" $key "*) ;; *)
            bad_settings "$f" "line $ln: unknown key '$key'" ;;
        esac
        case $seen in *" $key "*) bad_settings "$f" "line $ln: $key given twice" ;; esac
        why=$(check "$key" "$val") || bad_settings "$f" "line $ln: $key: $why"
        seen="$seen$key "
        case $key in
        ALPHAS) ALPHAS=$val ;; MS) MS=$val ;; DS) DS=$val ;; HEADS) HEADS=$val ;; N) N=$val ;;
        SEEDS) SEEDS=$val ;; STEPS) STEPS=$val ;; K) K=$val ;; KNOTS) KNOTS=$val ;; THREADS) THREADS=$val ;;
        esac
    done <"$f"
    for key in $SETTINGS_KEYS; do
        case $seen in *" $key "*) ;; *) bad_settings "$f" "no $key line" ;; esac
    done
}
bad_settings() {
    echo "sweep.sh: $1: $2 (a damaged settings file: plan the sweep again in a new --out)" >&2
    exit 1
}
# resume: a planned folder's settings read back as data (load), each
# setting this command line gave held against them (another value is
# refused: exit 2), then plan; an unplanned folder is planned from the
# options.  So run, plan and --emit need only --out to go on with a sweep.
resume() {
    if [ -f "$OUT/settings" ]; then
        asked=$(settings)
        load
        for key in $GIVEN; do
            want=$(printf '%s\n' "$asked" | grep "^$key=")
            have=$(settings | grep "^$key=")
            [ "$want" = "$have" ] ||
                die "$OUT holds a sweep with other settings ($(settings | tr '\n' ' ')); this command gives $want: use another --out, or give only --out to go on with it"
        done
    fi
    plan
}

# ---- one cell ----------------------------------------------------------------------------
# head_opts HEAD: the head's own sbw-fit options (sbw-fit refuses an
# option its head would ignore)
head_opts() {
    case $1 in softmax | sigsoftmax) ;; plif) echo "--knots $KNOTS" ;;
    mos+plif) echo "--k $K --knots $KNOTS" ;; *) echo "--k $K" ;; esac
}

# make_lang aALPHA_mM: the language OUT/lang/aALPHA_mM.npy, unless it is
# there (sbw-synth is deterministic and writes atomically, so two makers
# at once only repeat work); what a cell and a Slurm language job call
make_lang() {
    case $1 in a*_m*) ;; *) die "$1: not a language (aALPHA_mM)" ;; esac
    la=${1#a}; la=${la%%_m*}; lm=${1##*_m}
    case " $(words "$ALPHAS") " in *" $la "*) ;; *) die "$1: alpha $la is not one of the sweep's" ;; esac
    case " $(words "$MS") " in *" $lm "*) ;; *) die "$1: M $lm is not one of the sweep's" ;; esac
    lang="$OUT/lang/$1.npy"
    [ ! -f "$lang" ] || return 0
    recipe_run "$B/sbw-synth" dirichlet --n "$N" --m "$lm" --alpha "$la" --seed 1 --threads "$THREADS" -q \
        -o "$lang" >/dev/null || return $?
}
run_cell() {
    name=$1
    grep -qx "$name" "$OUT/cells.txt" || die "$name: not a cell of $OUT/cells.txt"
    final="$OUT/cells/$name.tsv"
    [ -f "$final" ] && return 0
    a=${name#a}; a=${a%%_*}
    rest=${name#*_m}; m=${rest%%_*}
    rest=${name#*_d}; d=${rest%%_*}
    h=${name#*_d*_}
    tmp="$OUT/cells/.$name.tsv.$$"
    err="$OUT/cells/$name.err"
    if ! make_lang "a${a}_m$m" 2>"$err"; then
        echo "cell $name failed: its language a${a}_m$m was not made: $(head -n 1 "$err")" >&2
        return 1
    fi
    # a cell's K column: what the legends call K (components, hidden units or intervals)
    case $h in softmax | sigsoftmax) kk=0 ;; plif) kk=$KNOTS ;; *) kk=$K ;; esac
    kopt=$(head_opts "$h")
    printf '# sweep cell %s: alpha=%s m=%s d=%s head=%s n=%s steps=%s\n' "$name" "$a" "$m" "$d" "$h" "$N" "$STEPS" \
        >"$tmp.meta"
    printf 'alpha\tm\td\tmodel\tk\tseed\tn\tsteps\tkl_mean\tmode_match\tloss\tseconds\tstill_improving\n' \
        >"$tmp.rows"
    s=1
    while [ $s -le "$SEEDS" ]; do
        # shellcheck disable=SC2086
        if ! recipe_run "$B/sbw-fit" -q --model "$h" --d "$d" $kopt --steps "$STEPS" --seed "$s" \
            --threads "$THREADS" "$lang" >"$tmp.fit" 2>"$err"; then
            rm -f "$tmp.meta" "$tmp.rows" "$tmp.fit"
            echo "cell $name failed at seed $s: $(head -n 1 "$err")" >&2
            return 1
        fi
        # each seed's command and warnings, as sbw-fit wrote them
        grep -E '^# (command|warning)=' "$tmp.fit" >>"$tmp.meta" || :
        imp=0
        grep -q '^# warning=fit_still_improving' "$tmp.fit" && imp=1
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$a" "$m" "$d" "$h" "$kk" "$s" "$N" \
            "$(tsv_field "$tmp.fit" steps)" "$(tsv_field "$tmp.fit" kl_mean)" \
            "$(tsv_field "$tmp.fit" mode_match)" "$(tsv_field "$tmp.fit" loss)" \
            "$(tsv_field "$tmp.fit" seconds)" "$imp" >>"$tmp.rows"
        s=$((s + 1))
    done
    cat "$tmp.meta" "$tmp.rows" >"$tmp"
    rm -f "$tmp.fit" "$tmp.meta" "$tmp.rows" "$err"
    sync "$tmp" 2>/dev/null || true # on disk before the name says the cell is done
    mv "$tmp" "$final"
}

# cell_cleanup: what a signal leaves of the running cell: its temporaries,
# its error file (so collect does not call it failed), a half-written language
# -- except under Slurm, where a signal is the scheduler's (a time limit,
# scancel, preemption): there the error file says so, and collect names the
# cell failed
cell_cleanup() {
    [ -z "${tmp:-}" ] || rm -f "$tmp" "$tmp.fit" "$tmp.meta" "$tmp.rows"
    [ -z "${err:-}" ] || rm -f "$err"
    if [ -n "${err:-}" ] && [ -n "${SLURM_JOB_ID:-}" ]; then
        echo "stopped by a signal in Slurm job ${SLURM_ARRAY_JOB_ID:-$SLURM_JOB_ID}${SLURM_ARRAY_TASK_ID:+_$SLURM_ARRAY_TASK_ID} (a time limit, scancel or preemption)" >"$err"
    fi
}

# run_cells: the unfinished cells, J at once, each a "sweep.sh cell" process
run_cells() {
    while read -r c; do [ -f "$OUT/cells/$c.tsv" ] || echo "$c"; done <"$OUT/cells.txt" |
        xargs -r -P "$JOBS" -n 1 "$SELF" --out "$OUT" cell
}
# run_cleanup: after a signal stopped every cell (each removed its own
# temporaries), what collect and figures were writing
run_cleanup() {
    rm -f "$OUT/results.tsv.tmp" "$OUT/report.md.tmp"
    rm -f "$OUT"/cells/.*.tsv.* 2>/dev/null || :
}

# progress after a cell: done / total and an ETA from this run's pace
progress() {
    total=$(wc -l <"$OUT/cells.txt")
    done_now=$(ls "$OUT/cells" | grep -c '\.tsv$' || true)
    now=$(date +%s)
    awk -v d="$done_now" -v t="$total" -v s0="${SWEEP_START:-$now}" -v n0="${SWEEP_DONE0:-0}" \
        -v now="$now" -v c="$1" 'BEGIN {
        eta = "?"; if (d > n0) { r = (now - s0) / (d - n0) * (t - d); eta = sprintf("%dm%02ds", r / 60, r % 60) }
        printf "[%d/%d cells] %s done, ETA %s\n", d, t, c, eta }' >&2
}

# ---- collect: results.tsv, missing and failed cells, figures, report ------------------------
collect() {
    res="$OUT/results.tsv"
    missing=0
    failed=0
    queued=0
    : >"$OUT/missing.txt"
    slurm_states
    first=""
    improving=$(while read -r c; do
        f="$OUT/cells/$c.tsv"
        [ ! -f "$f" ] || tsv_rows "$f" | awk -F'\t' -v c="$c" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "still_improving") k = i; next }
            k && $k == 1 { s = s (s == "" ? "" : ",") $6 } END { if (s != "") printf "%s (seeds %s) ", c, s }'
    done <"$OUT/cells.txt")
    {
        printf '# sbw sweep: %s\n' "$(settings | tr '\n' ' ')"
        [ -z "$improving" ] ||
            printf '# warning=fit_still_improving: stopped by --steps while the mean KL was still falling (column still_improving): %s\n' \
                "${improving% }"
        while read -r c; do
            f="$OUT/cells/$c.tsv"
            if [ -f "$f" ]; then
                [ -n "$first" ] ||
                    printf 'alpha\tm\td\tmodel\tk\tseed\tn\tsteps\tkl_mean\tmode_match\tloss\tseconds\tstill_improving\n'
                first=1
                # a cell finished before still_improving existed: nan there
                tsv_rows "$f" | tail -n +2 | awk -F'\t' -v OFS='\t' 'NF == 12 { $13 = "nan" } { print }' 
            else
                why=$(slurm_state "$c")
                case $why in
                queued*) echo "$c $why" && queued=$((queued + 1)) ;;
                *) if [ -f "$OUT/cells/$c.err" ]; then
                    echo "$c failed: $(head -n 1 "$OUT/cells/$c.err")${why:+ [$why]}" && failed=$((failed + 1))
                elif [ -z "$why" ]; then
                    echo "$c missing"
                else
                    case $why in language*) echo "$c missing: $why" ;; *) echo "$c failed: $why" && failed=$((failed + 1)) ;; esac
                fi ;;
                esac >>"$OUT/missing.txt"
                missing=$((missing + 1))
            fi
        done <"$OUT/cells.txt"
    } >"$res.tmp"
    mv "$res.tmp" "$res"
    total=$(wc -l <"$OUT/cells.txt")
    echo "collect: $((total - missing)) of $total cells in $res; $missing missing ($failed failed$([ ! -f "$OUT/slurm/jobs.tsv" ] || echo ", $queued queued in Slurm"))" >&2
    [ $missing -gt 0 ] && sed 's/^/  /' "$OUT/missing.txt" >&2
    [ -z "$improving" ] || echo "collect: still improving when stopped by --steps: ${improving% }" >&2
    [ -n "$first" ] || { echo "collect: no finished cell yet" >&2; return 1; }
    figures
    report
}

figures() {
    : >"$OUT/figures.txt"
    for a in $(words "$ALPHAS"); do
        grep -q "^$a	" "$OUT/results.tsv" || continue
        for y in mode_match kl_mean; do
            name="fig_${y}_a$a"
            logy=""
            [ $y = kl_mean ] && logy=--logy
            "$B/sbw-plot" -q sweep "$OUT/results.tsv" --where "alpha=$a" --y $y $logy --logx \
                --title "Dirichlet(α=$a) languages, N=$N: $(echo $y | sed 's/kl_mean/mean KL/; s/_/ /') against D" \
                -o "$OUT/$name"
            echo "$a $y $name" >>"$OUT/figures.txt"
        done
    done
}

# A figure's .dat as a markdown table: the numbers drawn (means and sds).
dat_table() {
    awk -F'\t' '
        /^# index/ { sub(/^# index [0-9]+: panel [0-9]+ \((M = )?/, ""); sub(/\), /, " | "); s = $0; next }
        /^#/ || NF < 3 { next }
        { printf "| %s | %s | %.4g | %s |\n", s, $1, $2, ($3 == "nan" ? "-" : sprintf("%.2g", $3)) }' "$1"
}

report() {
    r="$OUT/report.md"
    {
        echo "# Synthetic sweep (LMS section 5.1)"
        echo
        echo "Dirichlet(α) languages of N = $N contexts (the paper: 100,000; \`--paper\`), M words;"
        echo "heads $(words "$HEADS") (K = $K, PLIF $KNOTS intervals) fitted with $STEPS Adam steps,"
        echo "$SEEDS seeds per cell; mean ± sd over seeds. kl_mean and mode_match are sbw-fit's final"
        echo "float64 metrics against the true P*. Raw rows: \`results.tsv\`; cells missing or failed:"
        echo "\`missing.txt\` ($(wc -l <"$OUT/missing.txt") lines)."
        if [ -n "$improving" ]; then
            echo
            echo "**Not converged:** these fits stopped at $STEPS steps while their mean KL was still falling"
            echo "(sbw-fit's \`fit_still_improving\` warning; column \`still_improving\` of \`results.tsv\`): ${improving% }."
        fi
        echo
        while read -r a y name; do
            echo "## α = $a: $y (cf. LMS Figure $([ "$y" = mode_match ] && echo 2 || echo 3))"
            echo
            echo "![$y, α=$a]($name.png)"
            echo
            echo "| M | head | D | mean | sd |"
            echo "|---|---|---|---|---|"
            dat_table "$OUT/$name.dat"
            echo
        done <"$OUT/figures.txt"
    } >"$r.tmp"
    mv "$r.tmp" "$r"
    echo "collect: report in $r" >&2
}

# ---- emit: Slurm jobs (experiments/sweep_slurm.sh), GNU parallel list ------------------------
# shq STRING: STRING as one single-quoted shell word (a ' becomes '\'')
shq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }

emit() {
    resume
    self=$SELF
    out=$(cd "$OUT" && pwd)
    case $EMIT in
    slurm)
        slurm_emit
        return 0
        ;;
    parallel)
        f="$OUT/jobs.txt"
        pre="cd $(shq "$(pwd)") && $(shq "$self") --out $(shq "$out") cell"
        while read -r c; do printf '%s %s\n' "$pre" "$c"; done <"$OUT/cells.txt" >"$f.tmp"
        mv "$f.tmp" "$f"
        echo "run: parallel -j J < $(shq "$f")   then: experiments/sweep.sh --out $(shq "$out") collect" >&2
        ;;
    *) die "--emit: '$EMIT' is not slurm or parallel" ;;
    esac
    echo "wrote $f ($(wc -l <"$OUT/cells.txt") cells)" >&2
}

case $CMD in
plan)
    resume
    echo "planned $(wc -l <"$OUT/cells.txt") cells in $OUT (N=$N; the paper used 100000: --paper)" >&2
    ;;
emit)
    recipe_traps sweep.sh calib_cleanup
    emit
    ;;
lang)
    [ $# -eq 2 ] || die "lang takes one language name (aALPHA_mM)"
    load
    recipe_traps "sweep.sh: lang $2"
    make_lang "$2"
    ;;
calibrate)
    resume
    recipe_traps sweep.sh calib_cleanup
    calibrate
    ;;
cell)
    [ $# -eq 2 ] || die "cell takes one cell name"
    load
    tmp="" err=""
    recipe_traps "sweep.sh: cell $2" cell_cleanup
    run_cell "$2" && progress "$2"
    ;;
run)
    resume
    total=$(wc -l <"$OUT/cells.txt")
    todo=0
    while read -r c; do [ -f "$OUT/cells/$c.tsv" ] || todo=$((todo + 1)); done <"$OUT/cells.txt"
    rm -f "$OUT"/cells/.*.tsv.* "$OUT"/cells/*.err 2>/dev/null || true # half-done cells: redone
    rm -f "$OUT"/lang/.*.npy.tmp.* 2>/dev/null || true                  # a language killed half-written
    echo "sweep: $total cells ($((total - todo)) done, $todo to run, $JOBS at once), N=$N contexts" \
        "(the paper: 100000, --paper), $SEEDS seeds, $STEPS steps, into $OUT" >&2
    SWEEP_START=$(date +%s)
    SWEEP_DONE0=$((total - todo))
    export SWEEP_START SWEEP_DONE0 SBW_BIN="$B"
    recipe_traps sweep.sh run_cleanup
    st=0
    recipe_run run_cells || st=$?
    collect
    [ $st -eq 0 ] || { echo "sweep: some cells failed (see $OUT/missing.txt); rerun to retry them" >&2; exit 1; }
    ;;
collect)
    load
    recipe_traps sweep.sh run_cleanup
    collect
    ;;
*) die "give a command: run, plan, collect, cell NAME, or --emit slurm|parallel (see --help)" ;;
esac
