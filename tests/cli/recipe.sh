# tests/cli/recipe.sh -- sourced by the recipes' CLI tests (after lib.sh):
# waiting for a recipe to reach a step, and the processes it left.

# wait_for CMD...: runs CMD every 0.1 s until it succeeds (0), at most
# 120 s (1).  A bound on a wait, not a timing assertion.
wait_for() {
    wf=0
    while [ $wf -lt 1200 ]; do
        "$@" && return 0
        sleep 0.1
        wf=$((wf + 1))
    done
    return 1
}

# procs_with STRING: the ids of the live processes whose command line holds
# STRING (from one ps listing taken before the search runs).
procs_with() {
    ps -A -o pid= -o args= >"$T/ps.txt"
    awk -v s="$1" 'index($0, s) { print $1 }' "$T/ps.txt" | tr '\n' ' ' | sed 's/ $//'
}

# expect_none_left STRING "what": no process holds STRING; any that does is
# named, then stopped (by its id) so that the suite leaves nothing behind.
expect_none_left() {
    left=$(procs_with "$1")
    if [ -z "$left" ]; then ok; else
        bad "$2: still running: $(awk -v s="$1" 'index($0, s)' "$T/ps.txt" | head -c 400)"
        # shellcheck disable=SC2086 # a list of ids
        kill $left 2>/dev/null
    fi
}

# expect_terminated PID OUT NAME CHILD_PID_FILE DIR WHAT: SIGTERM to the
# recipe PID (started in the background, its output in OUT) ends it with
# 143 and "NAME: terminated", the tool's child whose id CHILD_PID_FILE
# holds is gone, and no process holding DIR is left.
expect_terminated() {
    kill -TERM "$1"
    wait "$1"
    expect_eq "$?" 143 "$6 SIGTERM: exit 143"
    expect_grep "^$3: terminated" "$2" "$6 SIGTERM: said"
    cpid=$(cat "$4")
    if kill -0 "$cpid" 2>/dev/null; then bad "$6 SIGTERM: the tool's child still runs" && kill "$cpid"; else ok; fi
    expect_none_left "$5" "$6 SIGTERM"
}
