# scripts/recipe.sh -- what every recipe under experiments/ shares (sourced,
# POSIX sh).  A recipe sets RECIPE_CWD=$(pwd) before it changes to the
# repository, sources this file, and then:
#   - resolves every path the caller gave with recipe_abs, so that a
#     relative path is the caller's, not the repository's;
#   - runs each tool through recipe_run, so that a signal reaches the
#     recipe while the tool runs (a shell defers a trap until its foreground
#     command ends; recipe_run waits on a background child instead);
#   - calls recipe_traps NAME [CLEANUP]: on SIGINT, SIGTERM or SIGHUP the
#     recipe sends SIGTERM to every process it started (children and their
#     children, found from ps, so a pipeline, xargs and the sweep's cells are
#     reached too), waits for its own children, runs CLEANUP (the recipe's
#     function removing its temporaries) and exits 130, 143 or 129.
# Tools get SIGTERM whatever the recipe got: a background child of a
# non-interactive shell ignores SIGINT, and sbw's tools treat both alike
# (sbw-lm train writes its checkpoint first).

# recipe_abs PATH: PATH made absolute against $RECIPE_CWD (the caller's
# folder); an absolute path, "" and "-" unchanged.
recipe_abs() {
    case $1 in '' | - | /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "${RECIPE_CWD:?}" "$1" ;; esac
}

# recipe_run CMD...: CMD (a tool or a shell function) as a background child,
# waited for; its status.  Redirections given to recipe_run apply to CMD;
# its standard input is the recipe's (a background list would get
# /dev/null).
recipe_run() {
    recipe_rc=0
    { "$@" <&9 9<&- & } 9<&0
    recipe_child=$!
    wait "$recipe_child" || recipe_rc=$?
    recipe_child=
    return $recipe_rc
}

# recipe_descendants PID: every process below PID (children first, then
# theirs), one id a line, from one ps listing; not those below a timeout(1),
# which passes the signal on itself (a second SIGTERM would make sbw-lm
# train die before its checkpoint).
recipe_descendants() {
    ps -A -o pid= -o ppid= -o comm= 2>/dev/null | awk -v root="$1" '
        { kids[$2] = kids[$2] " " $1; comm[$1] = $3 }
        END {
            n = split(kids[root], q, " ")
            for (i = 1; i <= n; i++) {
                if (comm[q[i]] == "timeout") continue
                m = split(kids[q[i]], c, " ")
                for (j = 1; j <= m; j++) q[++n] = c[j]
            }
            for (i = 1; i <= n; i++) print q[i]
        }'
}

# recipe_stop: SIGTERM to every process below this recipe (twice over, for
# one started while the first were signalled; none twice), waits for the
# recipe's own children, then until every process signalled has ended (at
# most a minute: sbw-lm train writes a checkpoint first), so none outlives
# the recipe.  Falls back to the child recipe_run started when ps cannot
# list processes.
recipe_stop() {
    recipe_sent=" "
    for recipe_round in 1 2; do
        recipe_new=""
        for p in $(recipe_descendants $$) ${recipe_child:-}; do
            case $recipe_sent in *" $p "*) ;; *) recipe_new="$recipe_new $p" recipe_sent="$recipe_sent$p " ;; esac
        done
        # shellcheck disable=SC2086 # a list of ids
        [ -z "$recipe_new" ] || kill -TERM $recipe_new 2>/dev/null || :
        [ "$recipe_round" = 2 ] || sleep 0.2 2>/dev/null || sleep 1
    done
    wait 2>/dev/null || :
    recipe_round=0
    while [ $recipe_round -lt 600 ]; do
        recipe_new=""
        for p in $recipe_sent; do kill -0 "$p" 2>/dev/null && recipe_new=1 && break; done
        [ -n "$recipe_new" ] || break
        sleep 0.1 2>/dev/null || sleep 1
        recipe_round=$((recipe_round + 1))
    done
}

# recipe_traps NAME [CLEANUP]: the signal handling described above; NAME
# starts the message ("NAME: terminated; ...").
recipe_traps() {
    recipe_name=$1
    recipe_cleanup=${2:-:}
    trap 'recipe_signal interrupted 130' INT
    trap 'recipe_signal terminated 143' TERM
    trap 'recipe_signal "hung up" 129' HUP
}
recipe_signal() {
    trap '' INT TERM HUP
    recipe_stop
    $recipe_cleanup
    echo "$recipe_name: $1; rerun to go on from the finished steps" >&2
    exit "$2"
}

# recipe_order DIR [FORMAT [EMPTY]]: stdin's "label<TAB>value" lines as one
# sentence, "a 0.9 > b 0.5 = c 0.5.", ordered by sbw-series --order DIR
# (desc or asc; sbw-series gives the relation between neighbours), each
# value printed with FORMAT [%.3f]; EMPTY ["(none measured yet)."] when
# stdin has no line.  Needs $BIN (sbw's tools) and scripts/tsv.sh.
recipe_order() {
    _ro_in=$(cat)
    if [ -z "$_ro_in" ]; then
        echo "${3:-(none measured yet).}"
        return 0
    fi
    printf '%s\n' "$_ro_in" | "$BIN/sbw-series" -q --order "$1" | tsv_rows /dev/stdin |
        awk -F'\t' -v fmt="${2:-%.3f}" 'NR > 1 { printf "%s%s " fmt, (NR > 2 ? " " $3 " " : ""), $1, $2 } END { print "." }'
}
