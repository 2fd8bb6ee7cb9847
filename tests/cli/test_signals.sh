# tests/cli/test_signals.sh -- signals, temporaries and streams (issue 16):
# every writing tool stopped by SIGTERM or SIGINT while a temporary is open
# leaves no temporary, no final file and exits 143 / 130; a mapped input
# that shrinks is one line and exit 1, not a SIGBUS; an output name of 250
# bytes is written; stdout carries one stream (a data stream there sends
# the table to stderr; two claims on stdout are refused, exit 2).
#
# Determinism: SBW_TEST_STOP=temp (or map) makes a tool stop itself
# (SIGSTOP) right after it created its first temporary (mapped its first
# view); the test then sends the signal, or shrinks the input, and SIGCONT.
. tests/cli/lib.sh


# expect_empty DIR "what": nothing at all in DIR (no final file, no
# temporary, no hidden drawing folder)
expect_empty() {
    left=$(ls -A "$1")
    if [ -z "$left" ]; then ok; else bad "$2: left in $1: $left"; fi
}

# stop_case NAME ARGS...: ARGS (writing into $T/o_NAME) stopped by SIGTERM
# then by SIGINT while a temporary is open.
stop_case() {
    name=$1
    shift
    for sig in TERM INT; do
        want=$([ $sig = TERM ] && echo 143 || echo 130)
        rm -rf "$T/o_$name"
        mkdir "$T/o_$name"
        run_stopped $sig temp "$@"
        expect_eq "$rc" "$want" "$name: SIG$sig mid-run exits $want ($(head -c 300 "$T/serr"))"
        expect_empty "$T/o_$name" "$name: SIG$sig"
    done
}

S=$BIN/sbw-synth
"$S" dirichlet --n 60 --m 20 --seed 1 -q -o "$T/X.npy" >/dev/null
"$S" dirichlet --n 60 --m 20 --seed 2 -q -o "$T/Y.npy" >/dev/null
"$BIN/sbw-rank" -q --spectrum "$T/spec.tsv" "$T/X.npy" >"$T/rank.tsv"

# ---- every writing tool: a signal while its temporary is open -------------------------------
O=$T/o_
stop_case synth "$S" dirichlet --n 2000 --m 500 -q -o "${O}synth/big.npy"
stop_case synth_probs "$S" dirichlet --n 200 --m 50 -q -o "${O}synth_probs/x.npy" \
    --probs "${O}synth_probs/p.npy"
stop_case kl "$BIN/sbw-kl" -q --matrix "${O}kl/K.npy" "$T/X.npy"
stop_case compare "$BIN/sbw-compare" -q --per-row "${O}compare/rows.tsv" \
    -o "${O}compare/t.tsv" "$T/X.npy" "$T/Y.npy"
stop_case rank "$BIN/sbw-rank" -q --spectrum "${O}rank/s.tsv" "$T/X.npy"
stop_case bound "$BIN/sbw-bound" -q --construct 2 -o "${O}bound/q.npy" "$T/X.npy"
stop_case fit "$BIN/sbw-fit" -q --d 2 --steps 20 -o "${O}fit/Q.npy" --log "${O}fit/log.tsv" \
    "$T/X.npy"
stop_case argmax "$BIN/sbw-argmax" -q -o "${O}argmax/t.tsv" "$FIX/argmax_square.npy"
stop_case plot "$BIN/sbw-plot" -q spectrum "$T/spec.tsv" --rank "$T/rank.tsv" \
    -o "${O}plot/fig"
stop_case verify "$BIN/sbw-verify" -q --only property1 --report "${O}verify/r.md"
C=$T/corpus
sh tests/fixtures/make_lm_corpus.sh "$C" 300
"$BIN/sbw-lm" train --data "$C" --quick --max-steps 2 --ckpt "$T/lm" -q >/dev/null 2>&1 ||
    bad "sbw-lm train for the eval case failed"
stop_case lm_eval "$BIN/sbw-lm" eval --data "$C" --ckpt "$T/lm" --tokens 100 -q \
    --logprobs "${O}lm_eval/lq.npy"

# ---- the issue's example without the hook: a large sbw-synth killed mid-write ---------------
# big_synth: starts a 4000 x 2000 sbw-synth into an empty $T/big in the
# background (its PID in $pid) and waits up to 5 s for its temporary
big_synth() {
    rm -rf "$T/big"
    mkdir "$T/big"
    "$S" dirichlet --n 4000 --m 2000 --threads 1 -q -o "$T/big/big.npy" >/dev/null 2>&1 &
    pid=$!
    i=0
    while [ $i -lt 500 ] && ! [ -e "$(echo "$T/big"/.big.npy.tmp.$pid.*)" ]; do
        sleep 0.01
        i=$((i + 1))
    done
}
for sig in TERM INT; do
    big_synth
    kill -$sig $pid
    wait $pid 2>/dev/null
    rc=$?
    expect_eq "$rc" "$([ $sig = TERM ] && echo 143 || echo 130)" "big synth: SIG$sig exit"
    expect_empty "$T/big" "big synth: SIG$sig leaves no .big.npy.tmp.* and no big.npy"
done

# kill -9 leaves the temporary (no handler runs); the next write of the same
# name removes it, since its process is gone
big_synth
kill -9 $pid
wait $pid 2>/dev/null
ls -a "$T/big" >"$T/big.ls"
expect_grep "^\.big\.npy\.tmp\.$pid\.[A-Za-z0-9]{6}$" "$T/big.ls" "kill -9 leaves .big.npy.tmp.PID.XXXXXX"
"$S" dirichlet --n 10 --m 5 -q -o "$T/big/big.npy" >/dev/null
expect_eq "$(ls -A "$T/big")" "big.npy" "the next write of big.npy removes the dead writer's temporary"

# ---- SIGPIPE: stdout's reader goes away; the other output's temporary goes too -------------
mkdir "$T/o_pipe"
"$S" dirichlet --n 20000 --m 50 -q -o - --probs "$T/o_pipe/p.npy" 2>/dev/null | head -c 100 >/dev/null
expect_empty "$T/o_pipe" "SIGPIPE on -o -: --probs FILE"

# ---- a mapped input that shrinks: one line, exit 1, no SIGBUS -------------------------------
"$S" dirichlet --n 3000 --m 300 --seed 3 -q -o "$T/L.npy" >/dev/null
for tool in kl compare; do
    cp "$T/L.npy" "$T/shrink.npy"
    rm -rf "$T/o_bus"
    mkdir "$T/o_bus"
    # shellcheck disable=SC2016 # expanded by run_stopped's eval
    on_stop='truncate -s 4096 "$T/shrink.npy"'
    if [ $tool = kl ]; then
        run_stopped none map "$BIN/sbw-kl" -q --matrix "$T/o_bus/K.npy" "$T/shrink.npy"
    else
        run_stopped none map "$BIN/sbw-compare" -q --per-row "$T/o_bus/r.tsv" "$T/shrink.npy" \
            "$T/L.npy"
    fi
    on_stop=
    expect_eq "$rc" 1 "$tool: a file shrunk while mapped exits 1"
    expect_grep "^sbw-$tool: .*shrink\.npy: truncated while reading" "$T/serr" "$tool: says so"
    expect_lines 1 "$T/serr" "$tool: in one line"
    expect_empty "$T/o_bus" "$tool: truncated input"
done

# ---- an output name of 250 bytes (the temporary's name is cut to fit NAME_MAX) ---------------
long=$(printf '%0246d' 0 | tr 0 n).npy
expect_eq "${#long}" 250 "the name is 250 bytes"
expect_exit 0 "-o a 250-byte name" "$S" dirichlet --n 3 --m 4 -q -o "$T/$long"
if [ -s "$T/$long" ]; then ok; else bad "250-byte output missing"; fi
mkdir "$T/o_long"
expect_exit 0 "--matrix a 250-byte name" "$BIN/sbw-kl" -q --matrix "$T/o_long/$long" "$T/X.npy"
if [ -s "$T/o_long/$long" ]; then ok; else bad "250-byte --matrix missing"; fi
expect_absent "$T/nothing" "no temporary left beside the long names"
expect_absent "$T/o_long/nothing" "no temporary left beside the long --matrix"
fig=$(printf '%0246d' 0 | tr 0 f) # NAME.svg is 250 bytes; the drawing folder is cut to fit
mkdir "$T/o_longfig"
expect_exit 0 "sbw-plot -o a 246-byte name" "$BIN/sbw-plot" -q spectrum "$T/spec.tsv" \
    --rank "$T/rank.tsv" -o "$T/o_longfig/$fig"
expect_eq "$(ls -A "$T/o_longfig" | wc -l)" 3 "the figure's three files, no folder left"

# ---- one stream on stdout ------------------------------------------------------------------
# npy_size FILE ROWS COLS: exit 0 when FILE is a float64 .npy of that shape and size
npy_size() {
    hl=$(od -An -tu2 -j8 -N2 "$1" | tr -d ' ')
    size=$(wc -c <"$1")
    head -c 6 "$1" | od -An -c | grep -q 'N   U   M   P   Y' &&
        head -c $((10 + hl)) "$1" | grep -q "'shape': ($2, $3)" &&
        [ "$size" -eq $((10 + hl + $2 * $3 * 8)) ]
}
"$BIN/sbw-kl" --matrix - "$T/X.npy" >"$T/K.npy" 2>"$T/kl.err"
expect_eq "$?" 0 "sbw-kl --matrix - > K.npy"
if npy_size "$T/K.npy" 60 60; then ok; else bad "--matrix - is not a 60 x 60 .npy alone"; fi
expect_grep "^rows	cols	expected_pairwise_kl" "$T/kl.err" "--matrix -: the table on stderr"
expect_exit 2 "sbw-kl --matrix - -o -" "$BIN/sbw-kl" --matrix - -o - "$T/X.npy"
expect_grep "^sbw-kl: --matrix - and -o - \(the table\) both claim stdout" "$T/err" "names both"
expect_lines 1 "$T/err" "--matrix - -o -: one line"
expect_exit 0 "sbw-kl --matrix - -o FILE" "$BIN/sbw-kl" -q --matrix - -o "$T/kl.tsv" "$T/X.npy"
if npy_size "$T/out" 60 60; then ok; else bad "--matrix - with -o FILE: stdout not the .npy"; fi
expect_grep "^rows	cols	expected_pairwise_kl" "$T/kl.tsv" "-o FILE keeps the table"

expect_exit 0 "sbw-synth --probs - -o x.npy" "$S" dirichlet --n 5 --m 4 --probs - -o "$T/x.npy"
if npy_size "$T/out" 5 4; then ok; else bad "--probs -: stdout is not the 5 x 4 .npy alone"; fi
expect_grep "x\.npy	5	4	" "$T/err" "--probs -: the table on stderr"
expect_exit 2 "sbw-synth -o - --probs -" "$S" dirichlet --n 5 --m 4 --probs - -o -
expect_grep "^sbw-synth dirichlet: -o - and --probs - both claim stdout" "$T/err" "names both"

expect_exit 2 "sbw-fit -o - --log -" "$BIN/sbw-fit" "$T/X.npy" --d 2 --steps 3 -o - --log -
expect_grep "^sbw-fit: -o - and --log - both claim stdout" "$T/err" "names both"
expect_lines 1 "$T/err" "-o - --log -: one line"
expect_exit 0 "sbw-fit --log -" "$BIN/sbw-fit" "$T/X.npy" --d 2 --steps 3 -q -o "$T/Q.npy" \
    --log -
expect_grep "^step	" "$T/out" "--log -: the log on stdout"
expect_absent_grep() { if grep -Eq -- "$1" "$2"; then bad "$3"; else ok; fi; }
expect_absent_grep "^softmax	" "$T/out" "--log -: no table row on stdout"
expect_grep "^softmax	2	" "$T/err" "--log -: the table on stderr"
expect_exit 0 "sbw-fit -o -" "$BIN/sbw-fit" "$T/X.npy" --d 2 --steps 3 -q -o -
if npy_size "$T/out" 60 20; then ok; else bad "sbw-fit -o -: stdout is not the .npy alone"; fi

expect_exit 0 "sbw-rank --spectrum -" "$BIN/sbw-rank" --spectrum - "$T/X.npy"
expect_grep "^index	sigma	" "$T/out" "--spectrum -: the spectrum on stdout"
expect_absent_grep "^rank	" "$T/out" "--spectrum -: no table on stdout"
expect_grep "^rank	" "$T/err" "--spectrum -: the table on stderr"

expect_exit 0 "sbw-compare --per-row -" "$BIN/sbw-compare" --per-row - "$T/X.npy" "$T/Y.npy"
expect_grep "^row	kl	" "$T/out" "--per-row -: the rows on stdout"
expect_absent_grep "kl_mean" "$T/out" "--per-row -: no summary on stdout"
expect_grep "kl_mean" "$T/err" "--per-row -: the summary on stderr"
expect_exit 2 "sbw-compare --per-row - -o -" "$BIN/sbw-compare" --per-row - -o - "$T/X.npy" \
    "$T/Y.npy"

expect_exit 0 "sbw-bound --construct -o -" "$BIN/sbw-bound" --construct 2 -o - "$T/X.npy"
if npy_size "$T/out" 60 20; then ok; else bad "sbw-bound -o -: stdout is not the .npy alone"; fi
expect_grep "^d	lms_bound" "$T/err" "sbw-bound -o -: the table on stderr"

expect_exit 2 "sbw-lm train --log - (rewritten as it grows)" "$BIN/sbw-lm" train --data "$C" \
    --quick --max-steps 1 --log -
expect_grep "^sbw-lm train: --log -: the log is rewritten" "$T/err" "says why"

finish
