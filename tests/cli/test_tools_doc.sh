#!/bin/sh
# tests/cli/test_tools_doc.sh -- docs/tools.md, the per-tool reference,
# keeps up with the tools: its "At a glance" table has a row for every
# tool (each $BIN/sbw-*, and sbw-rank-mpi when mpi/ is in the tree) and a
# heading names each; every ```sh block parses (sh -n) and every option an
# sbw command in it uses is one that tool's --help (its subcommand's, for
# `sbw-lm eval`, `sbw-synth head`, ...) names, so a renamed or removed
# option fails here; every table row has its header's number of cells;
# every relative link names a file, and a #anchor one of its headings.
# The blocks are not run (several need Penn Treebank or a cluster): the
# guides' own test (test_guides.sh) runs theirs.
. tests/cli/lib.sh
DOC=docs/tools.md
ROOT=$(pwd)
BINA=$(cd "$BIN" && pwd)

# --- every tool has a row in "At a glance" and a heading
awk '/^## At a glance/ { g = 1; next } /^## / { g = 0 }
     g && /^\| `sbw-/ { sub(/^\| `/, ""); sub(/[^a-z-].*/, ""); print }' "$DOC" >"$T/glance"
tools=""
for t in "$BIN"/sbw-*; do
    [ -x "$t" ] && tools="$tools ${t##*/}"
done
[ -f mpi/tool_rank_mpi.c ] && tools="$tools sbw-rank-mpi"
[ -n "$tools" ] || bad "no tools in $BIN"
for t in $tools; do
    if grep -qx -- "$t" "$T/glance"; then ok; else bad "$DOC: At a glance has no row for $t"; fi
    if grep -Eq -- "^##+ (.*[^a-z-])?$t([^a-z-]|\$)" "$DOC"; then ok; else bad "$DOC: no heading names $t"; fi
done

# --- the shell blocks: parsed, and their sbw options checked against --help
mkdir -p "$T/blocks"
md_blocks "$DOC" "$T/blocks"
nblocks=0
for b in "$T"/blocks/block.*; do
    [ -f "$b" ] || continue
    nblocks=$((nblocks + 1))
    line=${b##*.}
    if sh -n "$b" 2>"$T/syn"; then ok; else bad "$DOC (block at line $line) does not parse: $(head -c 200 "$T/syn")"; fi
    md_audit "$b" "$DOC" "$line"
done
if [ "$nblocks" -ge 20 ]; then ok; else bad "$DOC: only $nblocks shell blocks"; fi

# --- tables: every row has as many cells as its header ('\|' is no separator)
awk '
    /^```/ { inb = !inb; next }
    inb { next }
    /^\|/ {
        s = $0; gsub(/\\\|/, "", s); n = gsub(/\|/, "|", s)
        if (!intab) { intab = 1; want = n; start = NR }
        else if (n != want) printf "line %d: %d cells, the table at line %d has %d\n", NR, n - 1, start, want - 1
        next
    }
    { intab = 0 }
' "$DOC" >"$T/cells"
if [ -s "$T/cells" ]; then bad "$DOC: a table row with the wrong number of cells: $(head -n 3 "$T/cells")"; else ok; fi

# --- relative links: the file, and the anchor among its headings
# (GitHub's slugs: lower case, punctuation dropped, spaces to '-')
slugs() {
    grep '^#' "$1" | sed -e 's/^#* *//' | tr '[:upper:]' '[:lower:]' | sed -e 's/[^a-z0-9 _-]//g' -e 's/ /-/g'
}
grep -o '](\([^)]*\))' "$DOC" | sed -e 's/^](//' -e 's/)$//' | sort -u >"$T/links"
while read -r l; do
    case $l in http:* | https:* | mailto:*) continue ;; esac
    f=${l%%#*}
    if [ -e "docs/$f" ]; then ok; else
        bad "$DOC: link to $l: no such file"
        continue
    fi
    case $l in
    *'#'*)
        if slugs "docs/$f" | grep -qx -- "${l#*#}"; then ok; else bad "$DOC: link to $l: no such heading in docs/$f"; fi
        ;;
    esac
done <"$T/links"
finish
