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

# md_blocks DOC OUTDIR: every ```sh block of the markdown file DOC as
# OUTDIR/block.N (N: its first line), and OUTDIR/run.sh, the blocks marked
# by a "<!-- guide-test -->" line just above, in order, each after an echo
# naming DOC and its line (no run.sh when none is marked).
md_blocks() {
    awk -v out="$2" '
        /^<!-- guide-test -->$/ { mark = 1; next }
        /^```sh$/ && !inb { inb = 1; n = NR + 1; f = out "/block." n
            if (mark) print "echo \"== " FILENAME " line " n "\"" >> (out "/run.sh")
            printf "" > f; next }
        /^```/ && inb { inb = 0; close(f); mark = 0; next }
        inb { print >> f; if (mark) print >> (out "/run.sh"); next }
        NF { mark = 0 }
    ' "$1"
}

# md_help WORD...: the --help of the sbw tool ($BINA, an absolute bin) or
# recipe ('$SBW/PATH', under $ROOT) a command starts with, and of its
# subcommand when the second word is one; 1 when it is neither.
md_help() {
    case $1 in
    sbw-*)
        [ -x "$BINA/$1" ] || return 1
        "$BINA/$1" --help 2>/dev/null
        case ${2:-} in [a-z]*) "$BINA/$1" "$2" --help 2>/dev/null || true ;; esac
        ;;
    '$SBW/'*) sh "$ROOT/${1#\$SBW/}" --help 2>/dev/null ;;
    *) return 1 ;;
    esac
}

# md_audit BLOCK DOC LINE: one check for each option an sbw command of the
# shell block BLOCK (from DOC, at LINE) uses: that its --help (md_help)
# names it.  Continuation lines are joined, comments dropped, leading
# VAR=value words and keywords skipped, and the commands of a pipeline or
# list taken one by one; sbw-rank-mpi (built in build/mpi) is skipped.
md_audit() {
    md_doc=$2 md_at=$3
    sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$1" | sed -e 's/^[[:space:]]*#.*//' -e 's/[[:space:]]#.*//' |
        tr '|;&()' '\n\n\n\n\n' >"$T/md_cmds"
    while read -r mdline; do
        # shellcheck disable=SC2086 # the command's words, on purpose
        set -- $mdline
        while [ $# -gt 0 ]; do
            case $1 in *=* | do | then | else | '{') shift ;; *) break ;; esac
        done
        case ${1:-} in sbw-rank-mpi) continue ;; sbw-* | '$SBW/'*.sh) ;; *) continue ;; esac
        if ! md_help "$@" >"$T/md_help"; then
            bad "$md_doc (block at line $md_at): '$1' is no sbw tool or recipe"
            continue
        fi
        for md_o in $(printf '%s\n' "$mdline" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
            if grep -q -- "$md_o\\b" "$T/md_help"; then ok; else bad "$md_doc (block at line $md_at): $1 has no option $md_o"; fi
        done
    done <"$T/md_cmds"
}
