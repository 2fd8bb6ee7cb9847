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

# blocks GUIDE OUTDIR: OUTDIR/run.sh (the marked blocks, in order) and
# OUTDIR/block.N (every ```sh block, N its first line), from GUIDE
blocks() {
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

# helptext WORD...: the --help of the tool or recipe a command starts
# with, and of its subcommand when the second word is one
helptext() {
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

# audit BLOCK GUIDE LINE: every sbw command of BLOCK uses only options its
# --help names.  Continuation lines are joined, comments dropped, and the
# commands of a pipeline or list taken one by one.
audit() {
    ablock=$1 aguide=$2 aline=$3
    sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$ablock" | sed -e 's/^[[:space:]]*#.*//' -e 's/[[:space:]]#.*//' |
        tr '|;&()' '\n\n\n\n\n' >"$T/cmds"
    while read -r line; do
        # leading VAR=value assignments and keywords
        # shellcheck disable=SC2086
        set -- $line
        while [ $# -gt 0 ]; do
            case $1 in *=* | do | then | else | '{') shift ;; *) break ;; esac
        done
        [ $# -gt 0 ] || continue
        case $1 in sbw-* | '$SBW/'*.sh) ;; *) continue ;; esac
        if ! helptext "$@" >"$T/help"; then
            bad "$aguide (block at line $aline): '$1' is no sbw tool or recipe"
            continue
        fi
        for o in $(printf '%s\n' "$line" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
            if grep -q -- "$o\\b" "$T/help"; then ok; else bad "$aguide (block at line $aline): $1 has no option $o"; fi
        done
    done <"$T/cmds"
}

nguides=0
for g in docs/guide-*.md; do
    nguides=$((nguides + 1))
    name=$(basename "$g" .md)
    D=$T/$name
    mkdir -p "$D/blocks" "$D/work"
    blocks "$g" "$D/blocks"
    nb=0
    for b in "$D"/blocks/block.*; do
        [ -f "$b" ] || continue
        nb=$((nb + 1))
        line=${b##*.}
        if sh -n "$b" 2>"$T/syn"; then ok; else bad "$g (block at line $line) does not parse: $(head -c 200 "$T/syn")"; fi
        audit "$b" "$g" "$line"
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
blocks README.md "$T/readme"
for b in "$T"/readme/block.*; do
    [ -f "$b" ] || continue
    if sh -n "$b" 2>"$T/syn"; then ok; else bad "README.md (block at line ${b##*.}) does not parse"; fi
    audit "$b" README.md "${b##*.}"
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
