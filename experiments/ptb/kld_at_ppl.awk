# experiments/ptb/kld_at_ppl.awk -- the expected pairwise KL of several
# models at equal validation perplexity: each MODEL/curve.tsv (tokens,
# valid_ppl, expected_pairwise_kl along training) is interpolated linearly
# in log perplexity onto one grid of perplexities, every STEP from the
# smallest to the largest measured; outside a model's measured range its
# cell is nan (no extrapolation).
#
# usage: awk -v names="a b c" -v step=5 -f kld_at_ppl.awk a/curve.tsv b/curve.tsv c/curve.tsv
# check-recipes: allow not yet in a tool (issue 26 leftover): KLD interpolated linearly in log perplexity
function lerp(m, p,    i, lo, hi, t) {
    if (p < pmin[m] || p > pmax[m]) return "nan"
    for (i = 1; i < n[m]; i++) {
        lo = P[m, i]; hi = P[m, i + 1]
        if (p >= lo && p <= hi) {
            t = (hi == lo) ? 0 : (log(p) - log(lo)) / (log(hi) - log(lo))
            return sprintf("%.4f", K[m, i] + t * (K[m, i + 1] - K[m, i]))
        }
    }
    return (n[m] == 1 && p == P[m, 1]) ? sprintf("%.4f", K[m, 1]) : "nan"
}
FNR == 1 { f++; split(names, nm, " "); m = nm[f]; hdr = 0 }
/^#/ { next }
!hdr { for (i = 1; i <= NF; i++) { if ($i == "valid_ppl") cp = i; if ($i == "expected_pairwise_kl") ck = i }; hdr = 1; next }
{
    # insertion by perplexity: the curves fall in perplexity along training
    # but need not fall monotonically
    j = ++n[m]
    while (j > 1 && P[m, j - 1] > $cp + 0) { P[m, j] = P[m, j - 1]; K[m, j] = K[m, j - 1]; j-- }
    P[m, j] = $cp + 0; K[m, j] = $ck + 0
    if (!(m in pmin) || $cp + 0 < pmin[m]) pmin[m] = $cp + 0
    if (!(m in pmax) || $cp + 0 > pmax[m]) pmax[m] = $cp + 0
    if (!lo_all || $cp + 0 < lo_all) lo_all = $cp + 0
    if ($cp + 0 > hi_all) hi_all = $cp + 0
}
END {
    printf "ppl"
    for (f2 = 1; f2 <= f; f2++) printf "\t%s", nm[f2]
    printf "\n"
    p0 = step * int(lo_all / step)
    if (p0 < lo_all) p0 += step
    for (p = p0; p <= hi_all; p += step) {
        printf "%g", p
        for (f2 = 1; f2 <= f; f2++) printf "\t%s", lerp(nm[f2], p)
        printf "\n"
    }
}
