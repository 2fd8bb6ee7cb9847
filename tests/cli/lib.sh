# tests/cli/lib.sh -- sourced by tests/cli/test_*.sh (POSIX sh).
# Each check counts as one; finish prints a cmocka-style summary and exits
# 1 if any check failed.  Tools come from $SBW_BIN (default bin).
. scripts/tsv.sh
BIN=${SBW_BIN:-bin}
FIX=${SBW_FIXTURES:-tests/fixtures}
T=$(mktemp -d "${TMPDIR:-/tmp}/sbw-cli-XXXXXX")
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*" >&2
}

# expect_exit CODE "what" cmd args...   (stdout -> $T/out, stderr -> $T/err)
expect_exit() {
    want=$1
    what=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else
        bad "$what: exit $got, want $want; stderr: $(head -c 400 "$T/err")"
    fi
}

# expect_grep PATTERN FILE "what"   (extended regular expression)
expect_grep() {
    if grep -Eq -- "$1" "$2"; then ok; else
        bad "$3: /$1/ not in $2: $(head -c 400 "$2")"
    fi
}

# expect_lines N FILE "what": FILE has exactly N lines
expect_lines() {
    n=$(wc -l <"$2")
    if [ "$n" -eq "$1" ]; then ok; else bad "$3: $n lines in $2, want $1"; fi
}

# expect_absent FILE "what": nothing was written under FILE
expect_absent() {
    if [ -e "$1" ]; then bad "$2: $1 exists"; else ok; fi
    if ls -a "$(dirname "$1")" | grep -q '\.tmp\.'; then bad "$2: temporary left in $(dirname "$1")"; else ok; fi
}

# expect_eq GOT WANT "what"
expect_eq() {
    if [ "$1" = "$2" ]; then ok; else bad "$3: got '$1', want '$2'"; fi
}

# expect_num_near GOT WANT TOL "what": |GOT - WANT| <= TOL
expect_num_near() {
    if awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= t) }'; then ok; else
        bad "$4: got $1, want $2 +- $3"
    fi
}

finish() {
    echo "[==========] $((pass + fail)) check(s) run."
    if [ "$fail" -eq 0 ]; then
        echo "[  PASSED  ] $pass check(s)."
        exit 0
    fi
    echo "[  FAILED  ] $fail check(s)."
    exit 1
}

# run_stopped SIG POINT ARGS...: ARGS in the background with
# SBW_TEST_STOP=POINT (stdout, stderr to $T/sout, $T/serr); once it has
# stopped itself, SIG (or, for SIG = none, nothing) then SIGCONT; its exit
# status in rc.  A tool that never stops runs to its end (a failure below).
run_stopped() {
    sig=$1 point=$2
    shift 2
    SBW_TEST_STOP=$point "$@" >"$T/sout" 2>"$T/serr" &
    pid=$!
    i=0
    while [ $i -lt 1000 ] && ! grep -q '^State:[[:space:]]*T' "/proc/$pid/status" 2>/dev/null; do
        sleep 0.01
        i=$((i + 1))
    done
    [ -n "${on_stop:-}" ] && eval "$on_stop"
    [ "$sig" != none ] && kill -"$sig" $pid 2>/dev/null
    kill -CONT $pid 2>/dev/null
    wait $pid 2>/dev/null
    rc=$?
}

# signal_when SIG PID CMD...: once CMD succeeds (tried every 0.02 s, at
# most 600 times, while PID, a background job of this shell, runs), sends
# SIG to PID and waits for it; its exit status in rc.  How the suites stop
# a run part-way (then --resume it): CMD says the run is under way.
signal_when() {
    sw_sig=$1 sw_pid=$2
    shift 2
    sw_i=0
    while [ $sw_i -lt 600 ] && ! "$@" 2>/dev/null; do
        sleep 0.02
        sw_i=$((sw_i + 1))
    done
    kill -"$sw_sig" "$sw_pid" 2>/dev/null
    wait "$sw_pid"
    rc=$?
}

# logged FILE: FILE holds a data row (a line starting with a digit): a
# training log under way.
logged() { grep -q '^[0-9]' "$1"; }

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
