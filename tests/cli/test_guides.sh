#!/bin/sh
# tests/cli/test_guides.sh -- the guides in docs/guide-*.md run as written.
#
# A guide marks the shell blocks this test runs with a line
# "<!-- guide-test -->" just above the block's opening ```sh; the marked
# blocks of a guide run in order, as one `sh -e` script, in an empty
# folder with the tools on PATH, SBW set to the repository (as the
# guides say) and SBW_BIN to the tools under test (the recipes' default is
# $SBW/bin; run-tests.sh exports a relative SBW_BIN), so a command that fails or a file a later block needs that
# an earlier one no longer writes fails the guide.  Every ```sh block,
# marked or not (the hours-long and cluster-only ones), must parse (sh -n),
# and every option of every sbw tool or recipe it calls must be one that
# tool's --help (its subcommand's, for `sbw-synth head`, `sbw-lm train`,
# ...) or the recipe's --help names: a renamed or removed option fails the
# guide that still uses it.  The README's shell blocks (install, the first
# session) are parsed and option-checked the same way, not run, and its
# dependency table must name every package scripts/deps.sh installs.  The
# README's and the guides' relative links must name files that exist
# (docs/python.md excepted when absent: the Python binding's page comes
# with the binding).  What each guide shows at full scale (hours) is not
# run here: the PTB pipeline with all its toy models is
# tests/cli/test_ptb_quick.sh's, a real Slurm submission test_slurm.sh's.
. tests/cli/lib.sh
ROOT=$(pwd)
BINA=$(cd "$BIN" && pwd)

nguides=0
for g in docs/guide-*.md; do
    nguides=$((nguides + 1))
    name=$(basename "$g" .md)
    D=$T/$name
    mkdir -p "$D/blocks" "$D/work"
    md_blocks "$g" "$D/blocks"
    nb=0
    for b in "$D"/blocks/block.*; do
        [ -f "$b" ] || continue
        nb=$((nb + 1))
        line=${b##*.}
        if sh -n "$b" 2>"$T/syn"; then ok; else bad "$g (block at line $line) does not parse: $(head -c 200 "$T/syn")"; fi
        md_audit "$b" "$g" "$line"
    done
    if [ "$nb" -gt 0 ]; then ok; else bad "$g: no shell block"; fi
    if [ -s "$D/blocks/run.sh" ]; then
        # BIN too: `make asan` passes BIN=build-asan/bin on make's command
        # line, which make exports, and experiments/ptb/run.sh reads BIN
        # relative to the folder it runs in (the guide's work folder)
        expect_exit 0 "$g: its marked blocks" sh -c 'cd "$1" && PATH="$2:$PATH" SBW="$3" SBW_BIN="$2" BIN="$2" sh -e "$4"' sh \
            "$D/work" "$BINA" "$ROOT" "$D/blocks/run.sh"
    fi
done
if [ "$nguides" -ge 3 ]; then ok; else bad "only $nguides guides in docs/"; fi
# the README's first session and install lines: parsed and option-checked, not run
mkdir -p "$T/readme"
md_blocks README.md "$T/readme"
for b in "$T"/readme/block.*; do
    [ -f "$b" ] || continue
    if sh -n "$b" 2>"$T/syn"; then ok; else bad "README.md (block at line ${b##*.}) does not parse"; fi
    md_audit "$b" README.md "${b##*.}"
done

# what the marked blocks wrote that the guides' text reads off
W=$T/guide-own-model/work
expect_eq "$(tsv_field "$W/rank.tsv" rank)" 11 "own model: the stand-in's rank is D + 1"
expect_eq "$(tsv_field "$W/dstar.tsv" rank)" 10 "own model: the stand-in's d* is D"
expect_eq "$(tsv_meta "$W/argmax.tsv" unargmaxable)" 5 "own model: the 5 planted words are unargmaxable"
if [ -s "$T/guide-cluster/work/sweep-small/results.tsv" ] &&
    [ -s "$T/guide-cluster/work/sweep-slurm/slurm/submit.sh" ]; then ok; else bad "cluster: sweep results or Slurm jobs missing"; fi

# the README's dependency table names every package scripts/deps.sh
# installs (its *_PKGS lists), so the list cannot go out of date again
for p in $(sed -n 's/^[A-Z_]*_PKGS="\(.*\)"$/\1/p' scripts/deps.sh | tr ' ' '\n' | grep -v '^\$' | sort -u); do
    if grep -q "[\` ]$p[\` ]" README.md; then ok; else bad "README.md: the dependency table lacks $p (scripts/deps.sh installs it)"; fi
done

# relative links of the README and the guides name files that exist
for f in README.md docs/guide-*.md; do
    dir=$(dirname "$f")
    for l in $(grep -o '](\([^)#]*\)' "$f" | sed 's/^](//' | grep -v '^[a-z]*:'); do
        p=$dir/$l
        if [ -e "$p" ]; then ok; elif [ "$l" = docs/python.md ] || [ "$l" = python.md ]; then
            echo "note: $f links $l, the Python binding's page, not in this tree"
        else bad "$f: link to $l: no such file"; fi
    done
done
finish
