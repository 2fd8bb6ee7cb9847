#!/bin/sh
# tests/cli/test_recipes_help.sh -- every script in experiments/ (the
# recipes, their report writers, sweep_slurm.sh) answers --help and -h
# with its usage and the environment variables it reads, on stdout, exit
# 0, and runs nothing: no tool is started (SBW_BIN and BIN name a folder
# of stand-ins that would leave a mark), no file under experiments/ or
# out/ is written (before this test, ptb/report.sh --help rewrote the
# committed figures' scripts, and quickstart.sh and ptb/run.sh ran).
. tests/cli/lib.sh
FB=$T/fakebin
mkdir -p "$FB"
for t in synth info rank bound kl compare fit lm argmax series verify plot; do
    printf '#!/bin/sh\ntouch "%s/ran"\nexit 1\n' "$T" >"$FB/sbw-$t"
    chmod +x "$FB/sbw-$t"
done
touch "$T/stamp"
sleep 1
# env SCRIPT: the variables SCRIPT's help must name
env_of() {
    case $1 in
    experiments/quickstart.sh) echo "QUICKSTART_OUT QUICKSTART_N QUICKSTART_M QUICKSTART_TOPIC_N QUICKSTART_TOPIC_M QUICKSTART_DS QUICKSTART_FIT_STEPS QUICKSTART_LBFGS_STEPS SBW_BIN" ;;
    experiments/sweep.sh | experiments/tables-synthetic.sh | experiments/heads/run.sh) echo SBW_BIN ;;
    experiments/ptb/run.sh) echo "PTB STATE RES BIN STEP_HOURS THREADS OUTQ GRADNECK_T DECAY" ;;
    experiments/ptb/report.sh) echo "RES QUICK BIN" ;;
    experiments/precision/run.sh) echo "PTB STATE RES BIN THREADS STEP_HOURS RANK_T" ;;
    experiments/newer/report.sh) echo "RES MEASURED HIDDEN BENCH TRUNC OUT QUICK BIN" ;;
    esac
}
n=0
for s in experiments/*.sh experiments/*/*.sh; do
    [ -f "$s" ] || continue
    n=$((n + 1))
    for h in --help -h; do
        expect_exit 0 "$s $h" env SBW_BIN="$FB" BIN="$FB" sh "$s" $h
        if [ -s "$T/out" ]; then ok; else bad "$s $h: nothing on stdout"; fi
        if [ -s "$T/err" ]; then bad "$s $h: stderr: $(head -c 300 "$T/err")"; else ok; fi
        cp "$T/out" "$T/help$h"
    done
    if cmp -s "$T/help--help" "$T/help-h"; then ok; else bad "$s: -h and --help differ"; fi
    # its first line names it; a usage line or the commands it takes
    expect_grep "^$s " "$T/help--help" "$s --help: the first line names the script"
    if grep -Eq "[Uu]sage|^ *$s (\[|[A-Z][A-Z])|sourced by" "$T/help--help"; then ok; else bad "$s --help: no usage"; fi
    for v in $(env_of "$s"); do
        expect_grep "$v" "$T/help--help" "$s --help: names $v"
    done
done
if [ "$n" -ge 8 ]; then ok; else bad "only $n scripts under experiments/"; fi
if [ -e "$T/ran" ]; then bad "a --help started an sbw tool"; else ok; fi
changed=$(find experiments out -newer "$T/stamp" -type f 2>/dev/null | head -n 5)
if [ -z "$changed" ]; then ok; else bad "a --help wrote files: $changed"; fi
finish
