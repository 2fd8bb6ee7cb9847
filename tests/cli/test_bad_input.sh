# The bad-input corpus (tests/badinput/MANIFEST, files from tests/badinput/make.sh):
# every case against every tool that takes that kind of input.  Each run must
# give the manifest's exit status (0 ok, 1 bad data, 2 bad usage) and never
# crash (exit >= 128); a failure prints exactly one line on stderr (besides a
# usage error's "Usage:" and "Try" lines) that starts with the tool's name,
# matches the manifest's pattern and holds no control character; a success
# prints nothing on stderr; a failed run leaves nothing in its output
# directory; no run leaves a temporary (a hidden file) there or beside its
# inputs.  Prints the counts at the end.
. tests/cli/lib.sh
C=$T/corpus
export SBW_BLAS_TUNE=0 # no re-exec per run: 500 runs start faster
ABS=$(cd "$BIN" && pwd)
sh tests/badinput/make.sh "$C" || { bad "tests/badinput/make.sh failed"; finish; }
CTL=$(printf 'ctl\033[31m\007\nname.npy')
OKCTL=$(printf 'ok\033[31mname.npy')
"$BIN/sbw-fit" -q --d 2 --steps 0 --save "$C/params" "$C/good.npy" >/dev/null ||
    bad "could not make the --init parameters"

# The tools of a TOOLS field (a tool or a group, several words allowed).
tools_of() {
    for w in $1; do
        case $w in
        NPY) echo info rank bound kl compare fit argmax ;;
        MAT) echo rank bound kl compare fit argmax ;;
        LOGP) echo kl compare fit ;;
        FREE) echo info rank bound argmax ;;
        OPTS) echo rank bound kl compare fit argmax ;;
        *) echo "$w" ;;
        esac
    done
}

# subst TOKEN: placeholders replaced (printf keeps a trailing newline out of $(...)'s way)
subst() {
    s=$1
    while :; do
        case $s in
        *'{c}'*) s="${s%%\{c\}*}$C${s#*\{c\}}" ;;
        *'{o}'*) s="${s%%\{o\}*}$O${s#*\{o\}}" ;;
        *'{good}'*) s="${s%%\{good\}*}$C/good.npy${s#*\{good\}}" ;;
        *'{okctl}'*) s="${s%%\{okctl\}*}$OKCTL${s#*\{okctl\}}" ;;
        *'{ctl}'*) s="${s%%\{ctl\}*}$CTL${s#*\{ctl\}}" ;;
        *) break ;;
        esac
    done
    printf '%s.' "$s"
}

runs=0
ncases=0
names=" "
O=$T/o
# run_one CASE TOOL ARGS EXIT PATTERN
run_one() {
    case=$1 tool=$2 args=$3 want=$4 pat=$5
    rm -rf "$O" && mkdir "$O"
    runs=$((runs + 1))
    case $names in *" $tool "*) ;; *) names="$names$tool " ;; esac
    literal=false
    case $args in '!'*) literal=true args=${args#!} ;; esac
    stdin=/dev/null stdout=$T/out envs="" f=""
    set --
    if ! $literal; then
        case $tool in
        info | argmax | kl | compare | rank) set -- -q ;;
        bound) set -- -q --construct 1 -o "$O/out.npy" ;;
        fit) set -- -q --d 1 --steps 1 -o "$O/out.npy" ;;
        plot) set -- -q spectrum ;;
        esac
        case $tool in
        rank) set -- "$@" --spectrum "$O/out.tsv" ;;
        kl | compare | argmax) set -- "$@" -o "$O/out.tsv" ;;
        esac
    fi
    passes=1
    [ "$tool" = compare ] && ! $literal && passes=2 # the file as P and as Q
    p=1
    while [ $p -le $passes ]; do
        set -f
        for tok in $args; do
            case $tok in
            '<'*)
                stdin=$C/${tok#<} tok=-
                [ $p -eq 2 ] && tok=$C/good.npy
                f="<stdin>"
                ;;
            '>/dev/full') stdout=/dev/full && continue ;;
            SBW_*=*) envs="$envs $tok" && continue ;;
            *'{'*) tok=$(subst "$tok") && tok=${tok%.} ;;
            -* | /*) ;;
            *.npy | *.tsv) $literal || tok=$C/$tok ;;
            esac
            case $tok in -*) ;; *) [ -n "$f" ] || f=$(basename "$tok") ;; esac
            set -- "$@" "$tok"
        done
        set +f
        p=$((p + 1))
    done
    [ "$tool" = plot ] && ! $literal && set -- "$@" -o "$O/fig"
    bin=sbw-$tool
    # a pipe, not a redirected file: a file on stdin is seekable and sized
    # shellcheck disable=SC2002,SC2086
    cat "$stdin" | env $envs "$BIN/$bin" "$@" >"$stdout" 2>"$T/err"
    got=$?
    what="$case: sbw-$tool"
    if [ "$got" -ge 128 ]; then bad "$what: crashed (exit $got): $(head -c 300 "$T/err")"; else ok; fi
    if [ "$got" -eq "$want" ]; then ok; else
        bad "$what: exit $got, want $want; stderr: $(head -c 300 "$T/err")"
    fi
    grep -v -e '^Usage: ' -e "^Try '" "$T/err" >"$T/msg"
    if [ "$want" -eq 0 ]; then
        if [ -s "$T/err" ]; then bad "$what: stderr not empty: $(head -c 300 "$T/err")"; else ok; fi
    else
        n=$(wc -l <"$T/msg")
        if [ "$n" -eq 1 ]; then ok; else bad "$what: $n message lines, want 1: $(head -c 300 "$T/err")"; fi
        # "sbw-lm train: ", "sbw-synth dirichlet: " for tools with subcommands
        if grep -Eq "^$bin( [a-z]+)?: " "$T/msg"; then ok; else
            bad "$what: message does not start with '$bin: ': $(head -c 200 "$T/msg")"
        fi
        if LC_ALL=C grep -q '[[:cntrl:]]' "$T/msg"; then bad "$what: control character in: $(od -c "$T/msg" | head -3)"; else ok; fi
        # shellcheck disable=SC2016
        fre=$(printf '%s' "$f" | sed 's/[].[\\*^$()+?{|]/\\&/g')
        p2=$pat
        case $p2 in *'{f}'*) p2="${p2%%\{f\}*}$fre${p2#*\{f\}}" ;; esac
        if [ -z "$p2" ] || grep -Eq -- "$p2" "$T/msg"; then ok; else
            bad "$what: /$p2/ not in: $(head -c 300 "$T/msg")"
        fi
        left=$(find "$O" -mindepth 1 -maxdepth 1 | head -5 | tr '\n' ' ')
        if [ -z "$left" ]; then ok; else bad "$what: failed but wrote: $left"; fi
    fi
    hidden=$(find "$O" "$C" -mindepth 1 -maxdepth 1 -name '.*' | head -3 | tr '\n' ' ')
    if [ -n "$hidden" ]; then
        bad "$what: temporary left: $hidden"
        find "$C" "$O" -mindepth 1 -maxdepth 1 -name '.*' -exec rm -rf {} +
    else ok; fi
}

trim() { printf '%s' "$1" | sed 's/^ *//; s/ *$//'; }

while IFS='|' read -r case tools args want pat; do
    case $case in '#'* | '') continue ;; esac
    case=$(trim "$case") tools=$(trim "$tools") want=$(trim "$want")
    args=$(trim "$args") pat=$(trim "$pat")
    ncases=$((ncases + 1))
    for tool in $(tools_of "$tools"); do
        run_one "$case" "$tool" "$args" "$want" "$pat"
    done
done <tests/badinput/MANIFEST

# The control of the "claims" cases: a pipe that delivers what its header says
# reads as the file does, through the buffers that grow as rows arrive (2,200 x
# 1,000 float64 = 17.6 MB: sbw-fit's P* and sbw-rank's matrix grow twice).
"$BIN/sbw-synth" dirichlet --n 2200 --m 1000 --alpha 0.5 -q -o "$T/big.npy" >/dev/null
for tool in fit rank; do
    case $tool in
    fit) set -- -q --d 2 --steps 0 --precision double ;;
    rank) set -- -q --method direct ;;
    esac
    "$BIN/sbw-$tool" "$@" "$T/big.npy" >"$T/from_file"
    cat "$T/big.npy" | "$BIN/sbw-$tool" "$@" - >"$T/from_pipe"
    if [ $tool = fit ]; then # the loss, from P* held in double either way
        a=$(tsv_field "$T/from_file" loss 1) b=$(tsv_field "$T/from_pipe" loss 1)
        expect_num_near "$b" "$a" "$(awk -v a="$a" 'BEGIN { print 1e-13 * (a < 0 ? -a : a) }')" \
            "fit: a pipe's loss against the file's"
    else # the same rows through the same path: the same bits
        grep -v '^#' "$T/from_file" | cut -f 1-13 >"$T/a"
        grep -v '^#' "$T/from_pipe" | cut -f 1-13 >"$T/b"
        if [ -s "$T/a" ] && cmp -s "$T/a" "$T/b"; then ok; else
            bad "rank: a pipe read differently from the file: $(cat "$T/a") / $(cat "$T/b")"
        fi
    fi
done

# sbw-info with a bad file among good ones describes the good ones, says what is
# wrong with each bad one (one line each) and exits 1.
"$BIN/sbw-info" -q "$C/good.npy" "$C/trunc_payload.npy" "$C/goodq.npy" "$C/$CTL" >"$T/out" 2>"$T/err"
expect_eq "$?" 1 "info good bad good bad: exit"
expect_eq "$(grep -cv '^#' "$T/out")" 3 "info good bad good bad: header + the two good rows"
expect_eq "$(tsv_field "$T/out" file 2)" "$C/goodq.npy" "info good bad good bad: the file after the bad one"
expect_lines 2 "$T/err" "info good bad good bad: one line per bad file"
expect_grep 'trunc_payload.npy: truncated' "$T/err" "info: the first bad file"
expect_grep 'ctl\\x1b\[31m\\x07\\x0aname.npy: truncated' "$T/err" "info: the second, escaped"
# --json has one layout for one row and for many: the rows under "rows"
for files in "good.npy" "good.npy goodq.npy"; do
    # shellcheck disable=SC2086
    (cd "$C" && "$ABS/sbw-info" -q --json $files) >"$T/out" 2>"$T/err"
    expect_grep '^\{"tool": "sbw-info", .*"rows": \[\{"file": "good.npy", "rows": 9, "cols": 7, ' "$T/out" \
        "info --json $files: rows array"
    expect_lines 1 "$T/out" "info --json $files: one line"
done

ntools=$(echo $names | wc -w)
echo "bad-input corpus: $ncases cases x $ntools tools ($(echo $names)) = $runs runs"
finish
