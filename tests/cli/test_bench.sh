# tests/cli/test_bench.sh -- the bench smoke mode (make bench-smoke,
# bench/run.sh with BENCH_QUICK=1) on the two benches that once broke
# unnoticed (issue 27), bench_lm and bench_fit, without Python (BENCH_PY
# names an interpreter that imports nothing: the reference lines are
# skipped with a note, as on a machine without NumPy/PyTorch):
#   - with the real tools both run and print every sbw figure, exit 0;
#   - an sbw-lm that refuses an option the bench passes (what happened when
#     sbw-lm began refusing --k for a Softmax head) makes bench_lm FAIL and
#     run.sh exit 1, and bench_fit still runs to its end after it;
#   - an sbw-fit that exits 0 but writes no --log (a figure that cannot be
#     computed) makes bench_fit FAIL with "no figure" instead of printing a
#     blank or a stale number.
# The figures' values are timings: only their presence is checked.  Needs
# GNU time (/usr/bin/time, installed by scripts/deps.sh --bench-smoke):
# skipped with a note without it.
. tests/cli/lib.sh
if [ ! -x /usr/bin/time ] || ! /usr/bin/time -f %e true >/dev/null 2>&1; then
    echo "test_bench: no GNU time (/usr/bin/time): skipped (apt-get install time)"
    finish
fi
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac

# smoke NAME BINDIR CODE [BENCHES]: bench/run.sh in the quick mode on
# BENCHES (bench_lm and bench_fit) with the tools of BINDIR, exit CODE;
# report in $T/NAME/report.txt
smoke() {
    expect_exit "$3" "$1: bench/run.sh" env SBW_BIN="$2" BENCH_QUICK=1 BENCH_PY=/bin/false \
        BENCH_OUT="$T/$1" BENCH_ONLY="${4:-lm fit}" sh bench/run.sh
}

# ---- the real tools: every sbw figure, exit 0 ------------------------------------------
smoke real "$BIN" 0
R=$T/real/report.txt
expect_eq "$(head -n 1 "$R")" '# command=BENCH_ONLY="lm fit" make bench-smoke' "the report's first line: its command"
expect_grep "^== bench_lm: ok, " "$R" "bench_lm passes"
expect_grep "^== bench_fit: ok, " "$R" "bench_fit passes"
expect_grep "^every bench ran and printed its figures" "$R" "summary"
expect_grep "^NOTE: /bin/false cannot import torch " "$R" "torch reference skipped with a note"
num='[0-9][0-9.]*'
expect_grep "^lm softmax D=16: sbw $num tok/s" "$R" "Softmax LM figure (once missing: --k refused)"
expect_grep "^lm mos D=12 K=3: sbw $num tok/s" "$R" "MoS LM figure"
expect_grep "^lm mos head GEMMs .*: sbw $num GFLOPS" "$R" "MoS head GEMM figure"
expect_grep "^lm eval --logprobs softmax D=16: 400 rows in $num s" "$R" "Softmax eval figure"
expect_grep "^lm eval --logprobs mos D=12: 400 rows in $num s" "$R" "MoS eval figure"
for m in softmax mos lms; do
    expect_grep "^$m: sbw ${num}s/step" "$R" "sbw-fit $m figure"
done
# once: softmax's --parallel runs failed (a stale --k) and both columns
# showed the previous log's time
for m in softmax mos; do
    expect_grep "^$m, seconds per step \(one run each\): --parallel blocks $num --parallel blas $num$" \
        "$R" "sbw-fit $m --parallel figures"
done
expect_grep "^N=2000 M=500 D=10 softmax: ${num}s/step" "$R" "sbw-fit big-size figure"
if grep -qw FAIL "$R"; then bad "no FAIL line with the real tools: $(grep -w FAIL "$R")"; else ok; fi

# ---- fake tool directories: every real tool, one replaced ------------------------------
fakebin() {
    mkdir -p "$T/$1"
    for t in "$BIN"/sbw-*; do ln -s "$t" "$T/$1/$(basename "$t")"; done
    rm "$T/$1/$2"
}

# an sbw-lm that refuses --no-dropout, as sbw-lm refuses --k for softmax
fakebin lmbin sbw-lm
cat >"$T/lmbin/sbw-lm" <<EOF
#!/bin/sh
for a in "\$@"; do
    if [ "\$a" = --no-dropout ]; then
        echo "sbw-lm train: unknown option --no-dropout" >&2
        exit 2
    fi
done
exec "$BIN/sbw-lm" "\$@"
EOF
chmod +x "$T/lmbin/sbw-lm"
smoke lmbin "$T/lmbin" 1
R=$T/lmbin/report.txt
expect_grep "^FAIL: lm softmax D=16: sbw-lm train" "$R" "the refused option fails the Softmax run"
expect_grep "^FAIL: lm eval mos: checkpoint" "$R" "and the eval checkpoints"
expect_grep "^== bench_lm: FAILED \(exit 1, a FAIL line;" "$R" "bench_lm FAILED"
expect_grep "^== bench_fit: ok, " "$R" "bench_fit still runs after it"
expect_grep "^benches FAILED: bench_lm \(" "$R" "summary names bench_lm"

# an sbw-fit that succeeds but never writes its --log
fakebin fitbin sbw-fit
cat >"$T/fitbin/sbw-fit" <<EOF
#!/bin/sh
n=0
for a in "\$@"; do
    [ "\$a" = --log ] && n=1
done
[ \$n = 0 ] && exec "$BIN/sbw-fit" "\$@"
# drop --log FILE
for a in "\$@"; do
    shift
    if [ "\$skip" = 1 ]; then skip=0; continue; fi
    if [ "\$a" = --log ]; then skip=1; continue; fi
    set -- "\$@" "\$a"
done
exec "$BIN/sbw-fit" "\$@"
EOF
chmod +x "$T/fitbin/sbw-fit"
smoke fitbin "$T/fitbin" 1
R=$T/fitbin/report.txt
expect_grep "^FAIL: softmax: sbw seconds per step: no figure \(got ''\)" "$R" "a missing log is no figure"
expect_grep "^FAIL: softmax --parallel blocks: sbw-fit or its log" "$R" "nor a stale time for --parallel"
expect_grep "^== bench_fit: FAILED \(exit 1" "$R" "bench_fit FAILED"
expect_grep "^== bench_lm: ok, " "$R" "bench_lm unaffected"

# an sbw-rank whose randomized method fails: GNU time still writes the
# seconds of a failed run, and `set -- $(run_once ...) || fail` never saw
# the failure (set's status is its own): bench_rank_rand went on with them
fakebin rankbin sbw-rank
cat >"$T/rankbin/sbw-rank" <<EOF
#!/bin/sh
for a in "\$@"; do
    if [ "\$a" = randomized ]; then
        echo "sbw-rank: cannot map the file" >&2
        exit 1
    fi
done
exec "$BIN/sbw-rank" "\$@"
EOF
chmod +x "$T/rankbin/sbw-rank"
smoke rankbin "$T/rankbin" 1 rank_rand
R=$T/rankbin/report.txt
expect_grep "^FAIL: sbw-rank --method randomized$" "$R" "the failed run is named"
expect_grep "^== bench_rank_rand: FAILED \(exit 1, a FAIL line" "$R" "bench_rank_rand FAILED"
if grep -q "exact/randomized" "$R"; then bad "a figure from the failed run: $(grep "exact/randomized" "$R")"; else ok; fi
finish
