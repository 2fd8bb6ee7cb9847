#!/bin/sh
# experiments/heads/report.sh DIR NAME HEAD SYNTHETIC -- report.md of a head
# from the tables experiments/heads/run.sh left in DIR: every table names
# the TSV it comes from and that TSV's "# command=" line; the numbers are
# the TSVs' (copied, none computed here).  SBW_BIN: the tools (run.sh
# passes its own).
set -eu
# -h or --help: the comment above, exit 0 (it is run by run.sh, not by hand)
case ${1:-} in -h | --help)
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 0
    ;;
esac
. scripts/tsv.sh
O=$1 NAME=$2 HEAD=$3 SYN=$4
B=${SBW_BIN:-$(pwd)/bin}
A=$O/argmax.tsv
say() { printf '%s\n' "$*"; }
# cmd FILE: the line naming FILE and its command, then FILE's warnings
cmd() {
    say "Source: \`$(basename "$1")\`, written by \`$(tsv_meta "$1" command)\`"
    grep '^# warning=' "$1" | sed 's/^# warning=/- **Warning** (from the tool): /' || :
}
# md FILE COLS [COL=VALUE [LIMIT]]: the rows of FILE as a markdown table of
# the named columns (comma list), keeping rows whose COL is VALUE, at most
# LIMIT of them; sbw-plot table reads the cells (quoted ones, such as a
# vocabulary word "#", unquoted) and escapes them for markdown
md() {
    (cd "$(dirname "$1")" && "$B/sbw-plot" table -q "$(basename "$1")" --columns "$2" \
        ${3:+--where "$3"} --no-cite) |
        awk -v lim="${4:-0}" '/^\|---/ { t = 1; print; next } !t || !lim || ++n <= lim'
}

{
    say "# Head report: $NAME"
    say
    bias=$(tsv_meta "$A" bias)
    voc=$(tsv_meta "$A" vocab)
    say "- Head: \`$HEAD\`: M = $(tsv_meta "$A" m) words, D = $(tsv_meta "$A" d)${bias:+, bias \`$bias\`}${voc:+, vocabulary \`$voc\`}."
    if [ "$SYN" = 1 ]; then
        say "- Synthetic (experiments/heads/run.sh --synthetic, drawn by \`$(tsv_meta "$O/head/head.tsv" command)\`):"
        say "  the words named v* lie on the unit sphere (each a vertex of the hull, with or"
        say "  without the bias), the words named in* are convex combinations of D + 1 of them"
        say "  with their bias at or below the same combination: never the strict argmax.  The"
        say "  report must find exactly those."
    fi
    say "- Made by experiments/heads/run.sh; every table names its TSV and that TSV's command."
    say
    say "## Singular spectrum and rank measures of W"
    say
    say "Every named rank measure of W (sbw-rank --measures):"
    say
    md "$O/measures.tsv" measure,rank,threshold,on,rule
    say
    cmd "$O/measures.tsv"
    say
    say "Largest and smallest singular values: w0 = $(tsv_field "$O/rank.tsv" w0), w_min =" \
        "$(tsv_field "$O/rank.tsv" w_min); NR rank $(tsv_field "$O/rank.tsv" rank) of" \
        "min(M, D) = $(tsv_field "$O/rank.tsv" n)."
    cmd "$O/rank.tsv"
    say
    say "![spectrum](spectrum.png)"
    say
    say "## Words the head can never predict"
    say
    say "sbw-argmax decides every word exactly, each answer with a certificate checked in"
    say "double without the solver (an h that puts the word strictly first, margin above its"
    say "rounding bound; or convex weights lambda with sum_j lambda_j w_j = w_i and"
    say "sum_j lambda_j b_j >= b_i)."
    say
    say "| checked | argmaxable | unargmaxable | undecided | by duplicates | by pre-filter | by LP | LP rounds | seconds (pre-filter + LP) |"
    say "|---|---|---|---|---|---|---|---|---|"
    say "| $(tsv_meta "$A" checked) | $(tsv_meta "$A" argmaxable) | $(tsv_meta "$A" unargmaxable) |" \
        "$(tsv_meta "$A" undecided) | $(tsv_meta "$A" by_duplicates) | $(tsv_meta "$A" by_prefilter) |" \
        "$(tsv_meta "$A" by_lp) | $(tsv_meta "$A" lp_rounds) |" \
        "$(tsv_meta "$A" seconds_prefilter | cut -c1-6) + $(tsv_meta "$A" seconds_lp | cut -c1-6) |"
    say
    cmd "$A"
    say
    nun=$(tsv_meta "$A" unargmaxable)
    if [ "$nun" -gt 0 ]; then
        say "The $nun unargmaxable words (margin: b_i - sum lambda_j b_j, <= 0; bound: the"
        say "residual max_k |sum_j lambda_j w_jk - w_ik|; support: positive weights):"
        say
        md "$A" word,name,reason,margin,bound,support,stage argmaxable=0
        say
        say "Their largest attainable probability p_max over ||h||_2 <= R (reached by an h) and"
        say "its upper bound p_upper (the Frank-Wolfe gap), for each R: it stays below 1 as R"
        say "grows, the probability the other words 'steal' (Demeter et al. 2020)."
        say
        md "$O/maxprob.tsv" word,name,R,p_max,p_upper
        say
        say "Source: \`maxprob.tsv\`, the p_max_R*/p_upper_R* columns of \`argmax.tsv\` one row per (word, R)."
        say
        say "![largest attainable probability](maxprob.png)"
    else
        say "**No word is unargmaxable**: each of the $(tsv_meta "$A" checked) words has an h"
        say "certificate that makes it the strict argmax, so no max-prob ladder or figure is"
        say "drawn (every p_max tends to 1 as R grows).  The $(tsv_meta "$A" by_lp) words the"
        say "pre-filter's ray (h along w_i - mean w) could not prove went to the exact LP; their"
        say "margin min_j z_i - z_j at the LP's h, its rounding bound and ||h||_2 (up to 20 shown,"
        say "by word index):"
        say
        md "$A" word,name,margin,bound,cert_norm,rounds stage=lp 20
    fi
    if [ "$SYN" != 1 ] && [ "$(tsv_meta "$A" argmaxable)" -gt 0 ]; then
        # the argmaxable words with the longest certificates: rows selected
        # and sorted on cert_norm, the numbers copied
        tab=$(printf '\t')
        say
        say "Note: sbw-argmax decides over every h in R^D.  A model whose context vectors are"
        say "bounded reaches at most these words: sbw-lm's latent is tanh(.), inside the box"
        say "||h||_inf < 1 and so the ball ||h||_2 < sqrt(D), D = $(tsv_meta "$A" d).  The argmaxable"
        say "words whose certificate h is longest (column cert_norm of \`argmax.tsv\`, ||h||_2;"
        say "up to 20 shown); a certificate is one h, not the shortest, so whether the box holds"
        say "a context that puts each word first is not decided here:"
        say
        say "| word | name | cert_norm |"
        say "|---|---|---|"
        awk -F'\t' '/^#/ { next }
            !h { for (i = 1; i <= NF; i++) at[$i] = i; nm = ("name" in at) ? at["name"] : at["word"]; h = 1; next }
            $(at["argmaxable"]) == 1 { n = $nm; gsub(/\|/, "\\|", n); print $(at["word"]) "\t" n "\t" $(at["cert_norm"]) }' "$A" |
            sort -t "$tab" -k3,3gr -k1,1n | head -n 20 | sed "s/$tab/ | /g; s/^/| /; s/\$/ |/"
    fi
    if [ "$SYN" = 1 ]; then
        p=$(sort -n "$O/head/planted.txt" | tr '\n' ' ')
        f=$(awk -F'\t' '/^#/ { next } !h { for (i = 1; i <= NF; i++) at[$i] = i; h = 1; next }
            $(at["argmaxable"]) != 1 { print $(at["word"]) }' "$A" | sort -n | tr '\n' ' ')
        say
        say "## Planted words"
        say
        say "- Planted ($(wc -l <"$O/head/planted.txt" | tr -d ' ')): $p"
        say "- Not argmaxable by sbw-argmax: $f"
        if [ "$p" = "$f" ]; then
            say "- planted_found=exact: the planted words are exactly the unargmaxable ones."
        else
            say "- planted_found=MISMATCH: the two lists differ."
        fi
    fi
} >"$O/report.md.tmp"
mv "$O/report.md.tmp" "$O/report.md"
