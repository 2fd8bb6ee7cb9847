# experiments/ptb/kld_order.awk -- in words, from kld-at-ppl.tsv: for each
# pair A:B of `pairs`, whether A's expected pairwise KL is above B's at the
# perplexities where both were measured, by how much, and where the sign
# changes; then whether the whole chain (the paper's order, highest first)
# holds.  `labels` maps column names to the names the report uses.
#
# usage: awk -v pairs="mos-k15:moc moc:softmax" -v labels="mos-k15=MoS moc=MoC softmax=Softmax" -f kld_order.awk kld-at-ppl.tsv
# check-recipes: allow not yet in a tool (issue 26 leftover): the differences of two interpolated KLD curves
BEGIN {
    np = split(pairs, pr, " ")
    nl = split(labels, lb, " ")
    for (i = 1; i <= nl; i++) { split(lb[i], kv, "="); lab[kv[1]] = kv[2] }
}
/^#/ { next }
!hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
{
    for (q = 1; q <= np; q++) {
        split(pr[q], ab, ":")
        if (!(ab[1] in col) || !(ab[2] in col)) continue
        a = $col[ab[1]]; b = $col[ab[2]]
        if (a == "nan" || b == "nan") continue
        d = a - b
        c[q]++
        if (d > 0) up[q]++
        if (c[q] == 1) { plo[q] = $1; dmin[q] = d; dmax[q] = d }
        phi[q] = $1
        if (d < dmin[q]) dmin[q] = d
        if (d > dmax[q]) dmax[q] = d
        s = (d > 0) ? 1 : -1
        if (c[q] > 1 && s != last[q]) cross[q] = cross[q] (cross[q] ? ", " : "") "between " prev[q] " and " $1
        last[q] = s; prev[q] = $1
    }
}
function nm(x) { return (x in lab) ? lab[x] : x }
END {
    chain = 1
    for (q = 1; q <= np; q++) {
        split(pr[q], ab, ":")
        A = nm(ab[1]); B = nm(ab[2])
        if (!c[q]) { printf "- %s against %s: no perplexity measured for both yet.\n", A, B; chain = -1; continue }
        rng = sprintf("the grid points from %s to %s, where both curves were measured", plo[q], phi[q])
        if (up[q] == c[q])
            printf "- **%s above %s** at all %d common perplexities (%s), by %.3f to %.3f nats.\n", A, B, c[q], rng, dmin[q], dmax[q]
        else if (up[q] == 0) {
            printf "- **%s below %s** at all %d common perplexities (%s), by %.3f to %.3f nats: the reverse of the paper's order.\n", A, B, c[q], rng, -dmax[q], -dmin[q]
            chain = 0
        } else {
            printf "- **%s above %s at %d of %d** common perplexities (%s); the difference runs from %.3f to %.3f nats and changes sign %s.\n", A, B, up[q], c[q], rng, dmin[q], dmax[q], cross[q]
            chain = 0
        }
    }
    printf "\n"
    if (chain == 1) printf "So the paper's ordering holds at every perplexity the curves share.\n"
    else if (chain == 0) printf "So the paper's ordering does not hold at every perplexity the curves share; the lines above say where each pair agrees with it.\n"
    else printf "The ordering of all three cannot be read yet: a curve is missing.\n"
}
