# tests/cli/recipe.sh -- sourced by the recipes' CLI tests (after lib.sh):
# the processes a recipe left, its SIGTERM check, stand-in tools (wait_for
# is in lib.sh).

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

# fake_bin DIR NAME PIDFILE: DIR holds a link to every tool of $ABS, but NAME
# is a stand-in that starts a child of its own (sleep 300), writes that
# child's id to PIDFILE and waits: a tool the recipe must stop, whose own
# child must go too.
fake_bin() {
    mkdir "$1"
    for t in "$ABS"/sbw-*; do ln -s "$t" "$1/"; done
    rm "$1/$2"
    printf '#!/bin/sh\nsleep 300 &\necho $! >"%s"\nwait\n' "$3" >"$1/$2"
    chmod +x "$1/$2"
}
