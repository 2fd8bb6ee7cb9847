# experiments/sweep_slurm.sh -- sourced by experiments/sweep.sh (not a
# recipe of its own): a sweep's cells as Slurm jobs.
#
#   calibrate     the time and memory model of the sweep's cells, measured
#                 on this machine: OUT/timemodel (KEY=VALUE data, read back
#                 and checked as OUT/settings is) and OUT/calibration.tsv
#                 (the timed runs it came from)
#   slurm_emit    OUT/slurm/: one job per language not yet made, job arrays
#                 of the unfinished cells (each array after its language:
#                 afterok), submit.sh, plan.tsv (each cell's prediction,
#                 requests, array and task)
#   slurm_state   what Slurm says of an unfinished cell (collect): queued,
#                 failed and how (sacct when accounting is on, else the
#                 job's log), or its language not made
#
# The time model.  A fit of head H to an N x M language at embedding size D
# with S Adam steps takes
#     fit_start + (S + 2) * N * M * (a.H + b.H * D)  seconds
# (every step is full-batch: its GEMMs are N x M x D per component, its
# pointwise work N x M per component; the 2 extra steps stand for reading
# P* and the final float64 pass), a cell SEEDS such fits one after another,
# and a language N * M * synth_rate seconds.  calibrate makes one
# N=1000 x M=500 language with sbw-synth and fits each head of the sweep to
# it for 20 steps at the smallest and largest D of the sweep (at most 500):
# a.H and b.H from sbw-fit's own `seconds` (its loop) per step and entry,
# linear in D through the two points (never below either); fit_start the
# largest process time outside the loop (GNU time's elapsed minus
# `seconds`); synth_rate sbw-synth's elapsed time per entry, start-up
# included.  Small calibration sizes overstate the per-entry cost (a
# step's fixed costs are spread over fewer entries), which errs long.
#
# The requests.  --time: time_safety (3) times the prediction, at least
# min_minutes (5), in whole minutes: the factor covers a compute node
# slower per core than the machine that calibrated, and memory-bound
# sizes beyond the calibration's; recalibrate on a compute node with
# `srun experiments/sweep.sh --out DIR calibrate`.  --mem: mem_safety
# (1.25) times sbw-fit's own memory plan (its --dry-run total, asked of an
# .npy header of the cell's shape: the plan depends on the header only)
# plus base_mib, the largest peak RSS of a calibration fit (GNU time): the
# libraries and OpenBLAS's buffers the plan leaves out, and the small
# calibration's own planned buffers, counted twice to err high; a language job
# mem_safety times sbw-synth's calibration peak plus 64 MiB (its two blocks
# of 32 MiB, synth/sbw_synth_io.c, smaller at the calibration's size).
# --cpus-per-task: the sweep's --threads.  A cell's array holds only cells
# of one language whose requests are within a factor 2 of each other (the
# same power-of-two class of minutes and of MiB), at most 1000 tasks (the
# default MaxArraySize is 1001), and asks for its largest cell's time and
# memory.

# Run on its own rather than sourced: --help (or -h) prints the comment
# above and exits 0; anything else is a usage error (it is no recipe).
case ${0##*/} in sweep_slurm.sh)
    case ${1:-} in -h | --help)
        sed -n '1,/^$/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    esac
    echo "sweep_slurm.sh: sourced by experiments/sweep.sh, not run (see experiments/sweep.sh --help)" >&2
    exit 2
    ;;
esac

CALIB_N=1000
CALIB_M=500
CALIB_STEPS=20
TM_KEYS=" threads time_safety mem_safety min_minutes synth_rate synth_rss_mib fit_start base_mib "

# npy_shape_header N M: a version 1.0 .npy header of an N x M float64
# array, no payload (what sbw-fit --dry-run reads)
npy_shape_header() {
    dict="{'descr': '<f8', 'fortran_order': False, 'shape': ($1, $2), }"
    pad=$(((64 - (10 + ${#dict} + 1) % 64) % 64))
    hlen=$((${#dict} + pad + 1))
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
    printf '%s%*s\n' "$dict" "$pad" ''
}

# fit_plan_bytes HEAD D M N: the total of sbw-fit's memory plan for the fit
# (its --dry-run with the sweep's options), in bytes; nothing when
# sbw-fit refuses the fit (its reason on stderr)
fit_plan_bytes() {
    # shellcheck disable=SC2046 # the head's options, words
    npy_shape_header "$4" "$3" |
        "$B/sbw-fit" --dry-run -q --model "$1" --d "$2" $(head_opts "$1") --threads "$THREADS" - |
        awk -F'\t' '$1 == "total" { print $2 }'
}

# timed FILE CMD...: CMD run through GNU time; FILE's last line is then
# "ELAPSED_SECONDS PEAK_RSS_KIB"
timed() {
    f=$1
    shift
    recipe_run /usr/bin/time -f '%e %M' -o "$f" "$@"
}

# time_field FILE K: field K of timed's last line (1 seconds, 2 KiB)
time_field() { tail -n 1 "$1" | cut -d' ' -f"$2"; }

# calibrate: OUT/calibration.tsv and OUT/timemodel from timed runs here
# (above); a failed run is exit 1 with its reason, nothing written
calibrate() {
    [ -x /usr/bin/time ] || {
        echo "sweep.sh: calibrate needs GNU time (/usr/bin/time, Debian package time; scripts/deps.sh --slurm) for the runs' peak memory" >&2
        exit 1
    }
    [ "$THREADS" -ge 1 ] || die "--threads 0 (every core) asks Slurm for nothing: give --threads T, the CPUs of each cell"
    c="$OUT/calib"
    rm -rf "$c"
    mkdir -p "$c"
    echo "calibrate: sbw-synth and sbw-fit on a $CALIB_N x $CALIB_M language, $CALIB_STEPS steps, $THREADS thread(s), on $(hostname)" >&2
    timed "$c/time" "$B/sbw-synth" dirichlet --n $CALIB_N --m $CALIB_M --alpha 1 --seed 1 --threads "$THREADS" \
        -q -o "$c/lang.npy" >/dev/null || { echo "sweep.sh: calibrate: sbw-synth failed" >&2 && exit 1; }
    {
        printf 'tool\thead\td\tn\tm\tsteps\twall_seconds\tloop_seconds\tpeak_rss_kib\tplan_bytes\n'
        printf 'sbw-synth\t-\t0\t%s\t%s\t0\t%s\tnan\t%s\tnan\n' $CALIB_N $CALIB_M "$(time_field "$c/time" 1)" \
            "$(time_field "$c/time" 2)"
    } >"$c/cal.tsv"
    dmin=$(words "$DS" | tr ' ' '\n' | sort -n | head -n 1)
    dmax=$(words "$DS" | tr ' ' '\n' | sort -n | tail -n 1)
    [ "$dmax" -le $CALIB_M ] || dmax=$CALIB_M
    [ "$dmin" -le $CALIB_M ] || dmin=$CALIB_M
    for h in $(words "$HEADS"); do
        for d in $(printf '%s\n%s\n' "$dmin" "$dmax" | uniq); do
            # shellcheck disable=SC2046 # the head's options, words
            timed "$c/time" "$B/sbw-fit" -q --model "$h" --d "$d" $(head_opts "$h") --steps $CALIB_STEPS --seed 1 \
                --threads "$THREADS" "$c/lang.npy" >"$c/fit.tsv" ||
                { echo "sweep.sh: calibrate: sbw-fit --model $h --d $d failed" >&2 && exit 1; }
            plan=$(fit_plan_bytes "$h" "$d" $CALIB_M $CALIB_N)
            printf 'sbw-fit\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$h" "$d" $CALIB_N $CALIB_M $CALIB_STEPS \
                "$(time_field "$c/time" 1)" "$(tsv_field "$c/fit.tsv" seconds)" \
                "$(time_field "$c/time" 2)" "$plan" >>"$c/cal.tsv"
        done
    done
    {
        echo "# sweep.sh time and memory model, measured by calibrate on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "# (experiments/sweep_slurm.sh says how; OUT/calibration.tsv holds the runs; read back as data)"
        echo "# fit seconds = fit_start + (steps + 2) * n * m * (a.HEAD + b.HEAD * d); a cell = seeds fits"
        echo "# language seconds = n * m * synth_rate; --time = max(min_minutes, time_safety * seconds / 60)"
        echo "# --mem MiB = mem_safety * (sbw-fit --dry-run total / 2^20 + base_mib); language: mem_safety * (synth_rss_mib + 64)"
        printf 'threads=%s\ntime_safety=3\nmem_safety=1.25\nmin_minutes=5\n' "$THREADS"
        # check-recipes: allow the time model's constants from timed runs (Slurm requests, not a result)
        awk -F'\t' 'NR == 1 { next }
            $1 == "sbw-synth" { printf "synth_rate=%.6g\nsynth_rss_mib=%.6g\n", $7 / ($4 * $5), $9 / 1024; next }
            {
                h = $2; r = $8 / ($6 * $4 * $5)
                if (!(h in n)) { order[++nh] = h }
                n[h]++; d[h, n[h]] = $3; rate[h, n[h]] = r
                s = $7 - $8; if (s > start) start = s
                if ($9 / 1024 > base) base = $9 / 1024
            }
            END {
                printf "fit_start=%.6g\nbase_mib=%.6g\n", start, base
                for (i = 1; i <= nh; i++) {
                    h = order[i]; d1 = d[h, 1]; r1 = rate[h, 1]; d2 = d[h, n[h]]; r2 = rate[h, n[h]]
                    b = 0; a = (r1 > r2 ? r1 : r2)
                    if (d2 > d1 && r2 > r1) {
                        b = (r2 - r1) / (d2 - d1); a = r1 - b * d1
                        if (a < 0) { a = 0; b = (r1 / d1 > r2 / d2 ? r1 / d1 : r2 / d2) }
                    }
                    printf "a.%s=%.6g\nb.%s=%.6g\n", h, a, h, b
                }
            }' "$c/cal.tsv"
    } >"$c/timemodel"
    mv "$c/cal.tsv" "$OUT/calibration.tsv"
    mv "$c/timemodel" "$OUT/timemodel"
    rm -rf "$c"
    echo "calibrate: wrote $OUT/timemodel (from $OUT/calibration.tsv)" >&2
}

# calib_cleanup: what a signal leaves of a calibration
calib_cleanup() { rm -rf "$OUT/calib"; }

# tm_load: OUT/timemodel read back as data: # comments, then KEY=VALUE
# lines, each KEY known (the fixed keys, a.HEAD and b.HEAD for each head
# of the sweep) and given once, each VALUE a plain non-negative number,
# threads the sweep's; sets TM (the lines) for slurm_predict's awk.
# Anything else is exit 1.
tm_load() {
    f="$OUT/timemodel"
    need_keys=$TM_KEYS
    for h in $(words "$HEADS"); do need_keys="${need_keys}a.$h b.$h "; done
    seen=" " ln=0 TM=""
    while IFS= read -r line || [ -n "$line" ]; do
        ln=$((ln + 1))
        case $line in '#'*) continue ;; *=*) ;; *) bad_timemodel "line $ln is not KEY=VALUE" ;; esac
        key=${line%%=*} val=${line#*=}
        case $need_keys in *" $key "*) ;; *) bad_timemodel "line $ln: unknown key '$key'" ;; esac
        case $seen in *" $key "*) bad_timemodel "line $ln: $key given twice" ;; esac
        printf '%s\n' "$val" | grep -Eqx '([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?' ||
            bad_timemodel "line $ln: $key: '$val' is not a non-negative number"
        seen="$seen$key "
        TM="$TM$key $val
"
    done <"$f"
    for key in $need_keys; do
        case $seen in *" $key "*) ;; *) bad_timemodel "no $key line" ;; esac
    done
    [ "$(printf '%s' "$TM" | awk '$1 == "threads" { print $2 }')" = "$THREADS" ] ||
        bad_timemodel "measured with other threads than the sweep's $THREADS"
}
bad_timemodel() {
    echo "sweep.sh: $OUT/timemodel: $1 (calibrate again: experiments/sweep.sh --out DIR calibrate)" >&2
    exit 1
}

# slurm_predict: the unfinished cells' predictions and requests from the
# time model and sbw-fit's plan: OUT/slurm/plan.tsv (a row per cell: its
# language, array file and task) and OUT/slurm/jobs.list (a line per
# job file: FILE LANGUAGE TASKS MINUTES MEM_MIB, languages first)
slurm_predict() {
    s="$OUT/slurm"
    : >"$s/cells.in"
    while read -r c; do
        [ ! -f "$OUT/cells/$c.tsv" ] || continue
        a=${c#a}; a=${a%%_*}
        rest=${c#*_m}; m=${rest%%_*}
        rest=${c#*_d}; d=${rest%%_*}
        h=${c#*_d*_}
        plan=$(fit_plan_bytes "$h" "$d" "$m" "$N")
        [ -n "$plan" ] || { echo "sweep.sh: sbw-fit has no memory plan for cell $c (above)" >&2 && exit 1; }
        printf 'C %s a%s_m%s %s %s %s %s\n' "$c" "$a" "$m" "$h" "$m" "$d" "$plan" >>"$s/cells.in"
    done <"$OUT/cells.txt"
    awk '{ print $3 }' "$s/cells.in" | sort -u | while read -r l; do
        [ -f "$OUT/lang/$l.npy" ] || printf 'L %s %s\n' "$l" "${l##*_m}"
    done >"$s/langs.in"
    printf '%s' "$TM" >"$s/tm.in"
    : >"$s/plan.tsv"
    : >"$s/jobs.list"
    # check-recipes: allow Slurm requests from the time model (scheduling, not a result)
    awk -v n="$N" -v steps="$STEPS" -v seeds="$SEEDS" -v plan="$s/plan.tsv" -v jobs="$s/jobs.list" '
        function up(x) { return (x == int(x)) ? x : int(x) + 1 }
        function minutes(sec) { sec = tm["time_safety"] * sec; return up((sec > 60 * tm["min_minutes"] ? sec : 60 * tm["min_minutes"]) / 60) }
        function class(x) { return up(log(x) / log(2)) }
        FILENAME ~ /tm\.in$/ { tm[$1] = $2; next }
        $1 == "L" {
            sec = n * $3 * tm["synth_rate"]
            printf "lang_%s.sbatch %s 0 %d %d %.3g\n", $2, $2, minutes(sec), up(tm["mem_safety"] * (tm["synth_rss_mib"] + 64)), sec > jobs
            next
        }
        {
            sec = seeds * (tm["fit_start"] + (steps + 2) * n * $5 * (tm["a." $4] + tm["b." $4] * $6))
            t = minutes(sec); mem = up(tm["mem_safety"] * ($7 / 1048576 + tm["base_mib"]))
            key = $3 SUBSEP class(t) SUBSEP class(mem)
            if (!(key in group) || size[group[key]] == 1000) {
                group[key] = ++ng; lang[ng] = $3; num[$3]++; name[ng] = "fit_" $3 "_" num[$3] ".sbatch"
            }
            g = group[key]
            if (t > gt[g]) gt[g] = t
            if (mem > gm[g]) gm[g] = mem
            printf "%s\t%s\t%s\t%d\t%.3g\t%d\t%d\n", $2, $3, name[g], size[g]++, sec, t, mem > plan
        }
        END { for (g = 1; g <= ng; g++) printf "%s %s %d %d %d\n", name[g], lang[g], size[g], gt[g], gm[g] > jobs }
    ' "$s/tm.in" "$s/langs.in" "$s/cells.in"
    rm -f "$s/tm.in" "$s/cells.in" "$s/langs.in"
}

# sbatch_head NAME MINUTES MEM_MIB LOG [ARRAY_SIZE]: a job file's #SBATCH
# lines (the log only where sbatch can take the folder $out: no " in it,
# nor a % that sbatch would read as a pattern)
sbatch_head() {
    echo "#SBATCH --job-name=sbw-$1"
    [ -z "${5:-}" ] || echo "#SBATCH --array=0-$(($5 - 1))"
    echo "#SBATCH --ntasks=1"
    echo "#SBATCH --cpus-per-task=$THREADS"
    echo "#SBATCH --time=$2"
    echo "#SBATCH --mem=${3}M"
    case $out in *'"'* | *%*) ;; *) echo "#SBATCH --output=\"$4\"" ;; esac
}

# slurm_emit: OUT/slurm/ for the unfinished cells (above); an earlier
# emission that was submitted moves to OUT/slurm.N first, and one whose
# jobs are still queued is refused (exit 1)
slurm_emit() {
    [ "$THREADS" -ge 1 ] || die "--threads 0 (every core) asks Slurm for nothing: give --threads T, the CPUs of each cell"
    [ -f "$OUT/timemodel" ] || calibrate
    tm_load
    s="$OUT/slurm"
    out=$(cd "$OUT" && pwd)
    if [ -f "$s/jobs.tsv" ]; then
        q=$(slurm_queued)
        [ -z "$q" ] || { echo "sweep.sh: jobs of $s/submit.sh are still queued ($q): wait for them or scancel them first" >&2 && exit 1; }
        i=1
        while [ -e "$OUT/slurm.$i" ]; do i=$((i + 1)); done
        mv "$s" "$OUT/slurm.$i"
        echo "emit: the earlier submission's files moved to $OUT/slurm.$i" >&2
    fi
    rm -f "$s"/*.sbatch "$s/submit.sh" "$s/plan.tsv" "$s/jobs.list" "$s/states" 2>/dev/null || :
    mkdir -p "$s/logs"
    slurm_predict
    # the planned cells' errors are the earlier run's (collect listed them)
    cut -f1 "$s/plan.tsv" | while read -r c; do rm -f "$OUT/cells/$c.err"; done
    ncells=$(wc -l <"$s/plan.tsv")
    if [ "$ncells" = 0 ]; then
        rm -f "$s/plan.tsv" "$s/jobs.list"
        echo "emit: every cell of $out is finished; nothing to submit (collect merges them)" >&2
        return 0
    fi
    while read -r file lang tasks minutes mem sec; do
        log="$out/slurm/logs/${file%.sbatch}.log"
        {
            echo "#!/bin/bash"
            if [ "$tasks" = 0 ]; then
                echo "# Slurm job: the language $lang of the sweep in $out (predicted ${sec} s;"
                echo "# experiments/sweep.sh --emit slurm).  Submitted by submit.sh; its cells' arrays wait for it."
                sbatch_head "$lang" "$minutes" "$mem" "$log"
            else
                echo "# Slurm job array: $tasks cells of the sweep in $out on the language $lang"
                echo "# (experiments/sweep.sh --emit slurm; the predictions in plan.tsv).  Submitted by submit.sh after its language."
                sbatch_head "${file%.sbatch}" "$minutes" "$mem" "${log%.log}-%a.log" "$tasks"
            fi
            echo "set -eu"
            echo "export SBW_BIN=$(shq "$B")"
            echo "cd $(shq "$(pwd)")"
            if [ "$tasks" = 0 ]; then
                echo "exec $(shq "$SELF") --out $(shq "$out") lang $lang"
            else
                echo "CELLS=("
                awk -F'\t' -v f="$file" '$3 == f { print "  " $1 }' "$s/plan.tsv"
                echo ")"
                echo "exec $(shq "$SELF") --out $(shq "$out") cell \"\${CELLS[\$SLURM_ARRAY_TASK_ID]}\""
            fi
        } >"$s/$file.tmp"
        mv "$s/$file.tmp" "$s/$file"
    done <"$s/jobs.list"
    slurm_submit_script >"$s/submit.sh.tmp"
    mv "$s/submit.sh.tmp" "$s/submit.sh"
    { printf 'cell\tlanguage\tjob_file\ttask\tpredicted_seconds\ttime_minutes\tmem_mib\n'; cat "$s/plan.tsv"; } >"$s/plan.tsv.tmp"
    mv "$s/plan.tsv.tmp" "$s/plan.tsv"
    nl=$(grep -c '^lang_' "$s/jobs.list" || :)
    na=$(grep -c '^fit_' "$s/jobs.list" || :)
    rm -f "$s/jobs.list"
    echo "wrote $s: $nl language job(s), $na array(s) over $ncells cells; submit: bash $(shq "$s/submit.sh")" >&2
    echo "then: experiments/sweep.sh --out $(shq "$out") collect" >&2
}

# slurm_submit_script: submit.sh, from OUT/slurm/jobs.list: each language
# job, then each array with --dependency=afterok on its language's job
# when that is submitted too (--kill-on-invalid-dep: an array whose
# language failed is cancelled, not left pending); the ids to jobs.tsv
slurm_submit_script() {
    echo "#!/bin/bash"
    echo "# Submits the sweep's Slurm jobs (experiments/sweep.sh --emit slurm): each language not"
    echo "# yet made, then each job array of cells after its language (afterok).  The job ids go"
    echo "# to jobs.tsv, which collect reads.  sbatch's own variables apply (SBATCH_ACCOUNT,"
    echo "# SBATCH_PARTITION, SBATCH_QOS, ...).  Run once: bash $(shq "$out/slurm/submit.sh")"
    echo "set -eu"
    echo "cd $(shq "$out/slurm")"
    echo "if [ -e jobs.tsv ]; then"
    echo "    echo \"submit.sh: already submitted (jobs.tsv); to resubmit the unfinished cells: experiments/sweep.sh --out $(shq "$out") --emit slurm\" >&2"
    echo "    exit 1"
    echo "fi"
    slurm_submit_fn
    i=0
    langs=" "
    while read -r file lang tasks minutes mem sec; do
        if [ "$tasks" = 0 ]; then
            i=$((i + 1))
            echo "L$i=\$(submit $file) # $lang"
            langs="$langs$lang=L$i "
        else
            dep=""
            case $langs in *" $lang=L"*)
                v=${langs#*" $lang="}
                dep=" --dependency=afterok:\$${v%% *} --kill-on-invalid-dep=yes" ;;
            esac
            echo "submit $file$dep >/dev/null"
        fi
    done <"$s/jobs.list"
    echo "echo \"submitted \$(wc -l <jobs.tsv) jobs (ids in $(shq "$out/slurm/jobs.tsv"))\""
}

# slurm_submit_fn: a submit script's submit(): sbatch --parsable of a job
# file, its id and file appended to jobs.tsv (collect reads them), the id
# printed (also experiments/argmax-shards.sh's)
slurm_submit_fn() {
    cat <<'EOF'
submit() { # FILE [sbatch options]: sbatch FILE, its job id recorded
    f=$1
    shift
    id=$(sbatch --parsable "$@" "$f")
    id=${id%%;*}
    printf '%s\t%s\n' "$id" "$f" >>jobs.tsv
    printf '%s\n' "$id"
}
EOF
}

# slurm_queued: the ids in OUT/slurm/jobs.tsv that squeue still lists
# (nothing when squeue is not there)
slurm_queued() {
    command -v squeue >/dev/null 2>&1 || return 0
    squeue -h -r -o '%i|%T' 2>/dev/null | awk -F'|' -v jobs="$OUT/slurm/jobs.tsv" '
        BEGIN { while ((getline l < jobs) > 0) { split(l, f, "\t"); id[f[1]] = 1 } }
        { j = $1; sub(/_.*/, "", j) } j in id { printf "%s%s %s", (n++ ? ", " : ""), $1, $2 }'
}

# slurm_states: OUT/slurm/states, a line per job or task of the last
# submission that Slurm still knows: "FILE TASK STATE JOBID" (TASK - for a
# language job), from squeue (queued) and sacct (finished; nothing when
# accounting is off); nothing without jobs.tsv
slurm_states() {
    s="$OUT/slurm"
    [ -f "$s/jobs.tsv" ] || return 0
    {
        command -v squeue >/dev/null 2>&1 && squeue -h -r -o '%i|%T' 2>/dev/null | sed 's/^/Q|/'
        command -v sacct >/dev/null 2>&1 &&
            sacct -n -P -X -j "$(cut -f1 "$s/jobs.tsv" | paste -sd, -)" -o JobID,State 2>/dev/null | sed 's/^/A|/'
    } | awk -F'|' -v jobs="$s/jobs.tsv" '
        BEGIN { while ((getline l < jobs) > 0) { split(l, f, "\t"); file[f[1]] = f[2] } }
        {
            j = $2; t = "-"
            if (j ~ /_[0-9]+$/) { t = j; sub(/.*_/, "", t); sub(/_.*/, "", j) }
            if (!(j in file) || j ~ /\[/) next
            split($3, w, " ")
            k = file[j] " " t
            if ($1 == "Q" || !(k in st)) { st[k] = w[1]; id[k] = $2 }
        }
        END { for (k in st) print k, st[k], id[k] }' >"$s/states"
}

# slurm_state CELL: what the last submission says of an unfinished cell, as
# collect words it after the cell's name ("" when there was none): queued,
# a Slurm state that is a failure (sacct, else the task's log), or its
# language job's failure
slurm_state() {
    s="$OUT/slurm"
    [ -f "$s/plan.tsv" ] && [ -f "$s/states" ] || return 0
    row=$(awk -F'\t' -v c="$1" '$1 == c { print $3, $4, $2; exit }' "$s/plan.tsv")
    [ -n "$row" ] || return 0
    read -r file task lang <<EOF
$row
EOF
    st=$(awk -v f="$file" -v t="$task" '$1 == f && $2 == t { print $3, $4 }' "$s/states")
    log="$s/logs/${file%.sbatch}-$task.log"
    if [ -z "$st" ] && [ -f "$log" ]; then
        for w in 'DUE TO TIME LIMIT:TIMEOUT' 'DUE TO PREEMPTION:PREEMPTED' 'DUE TO NODE FAILURE:NODE_FAIL' \
            'oom-kill|Out Of Memory|OUT_OF_MEMORY:OUT_OF_MEMORY' 'CANCELLED AT:CANCELLED'; do
            if grep -Eq "${w%:*}" "$log"; then st=${w##*:} && break; fi
        done
        [ -z "$st" ] || st="$st (from its log)"
    fi
    case $st in
    PENDING* | RUNNING* | CONFIGURING* | COMPLETING* | REQUEUED* | RESIZING* | SUSPENDED*)
        echo "queued: Slurm job ${st#* } ${st%% *}"
        return 0 ;;
    '' | COMPLETED*) ;;
    *) echo "Slurm ${st%% *} ${st#* } (${file%.sbatch} task $task; log slurm/logs/${file%.sbatch}-$task.log)" && return 0 ;;
    esac
    [ ! -f "$OUT/lang/$lang.npy" ] || return 0
    lst=$(awk -v f="lang_$lang.sbatch" '$1 == f { print $3, $4 }' "$s/states")
    [ -z "$lst" ] && [ ! -f "$s/logs/lang_$lang.log" ] && return 0
    echo "language $lang not made${lst:+ (Slurm job ${lst#* } ${lst%% *})}; see slurm/logs/lang_$lang.log"
}
