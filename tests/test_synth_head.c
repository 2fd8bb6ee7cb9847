/* test_synth_head.c -- heads with planted interior words (synth/
 * sbw_synth_head): in the plane the planted words are exactly the
 * non-vertices of a brute-force hull; on small heads sbw_argmax_run
 * certifies every planted word unargmaxable and every sphere word
 * argmaxable (with and without a bias), as the construction promises;
 * the planted bias lies below the hull (the lambda certificate's gap);
 * the same seed gives the same bytes, another seed another head; bad
 * sizes refused; the files written read back bit for bit, and a failed
 * write leaves none of them. */
#include "sbw_test.h"

#include "sbw_argmax.h"
#include "sbw_error.h"
#include "sbw_npy.h"
#include "sbw_synth_head.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether a and b hold the same bytes (bytes of them): bit for bit, so -0.0
 * differs from 0.0 and a NaN payload counts. */
static bool same_bytes(const void *a, const void *b, size_t bytes)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < bytes; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

/* Whether p lies in the closed triangle (a, b, c) of the plane (signs of
 * the three orientations agree, zeros allowed). */
static bool in_triangle(const double *p, const double *a, const double *b, const double *c)
{
    double d1 = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    double d2 = (c[0] - b[0]) * (p[1] - b[1]) - (c[1] - b[1]) * (p[0] - b[0]);
    double d3 = (a[0] - c[0]) * (p[1] - c[1]) - (a[1] - c[1]) * (p[0] - c[0]);
    bool neg = d1 < 0 || d2 < 0 || d3<0, pos = d1> 0 || d2 > 0 || d3 > 0;
    return !(neg && pos);
}

/* The planted head in the plane against a brute-force hull (Caratheodory:
 * a point is not a vertex iff it lies in a triangle of three others): the
 * planted words are exactly the non-vertices, the others are unit vectors.
 * Bad sizes refused with the head zeroed. */
static void test_plant_plane(void **state)
{
    (void)state;
    sbw_synth_head h = {0};
    size_t m = 24, k = 5, np = 0;
    SBW_ASSERT_OK(sbw_synth_head_plant(&h, m, 2, k, false, 11));
    for (size_t i = 0; i < m; i++) {
        const double *p = h.w + 2 * i;
        bool inside = false;
        for (size_t a = 0; a < m && !inside; a++)
            for (size_t b = a + 1; b < m && !inside; b++)
                for (size_t c = b + 1; c < m && !inside; c++)
                    inside = a != i && b != i && c != i &&
                             in_triangle(p, h.w + 2 * a, h.w + 2 * b, h.w + 2 * c);
        SBW_ASSERT_EQ(inside, h.planted[i]);
        np += h.planted[i];
        double nrm = hypot(p[0], p[1]);
        if (h.planted[i])
            SBW_ASSERT_LT(nrm, 1.0);
        else
            SBW_ASSERT_NEAR(nrm, 1.0, 4 * DBL_EPSILON);
    }
    SBW_ASSERT_EQ(np, k);
    sbw_synth_head_free(&h);
    assert_null(h.w);
    SBW_ASSERT_EQ(sbw_synth_head_plant(&h, 5, 4, 1, false, 1), (int)SBW_EINVAL);
    assert_null(h.w);
    SBW_ASSERT_EQ(h.m, 0);
    /* D = 1: the sphere is {-1, 1}, its words would repeat */
    SBW_ASSERT_EQ(sbw_synth_head_plant(&h, 10, 1, 2, false, 1), (int)SBW_EINVAL);
    assert_non_null(strstr(sbw_error_reason(), "2 <= d"));
    assert_null(h.w);
    SBW_ASSERT_EQ(sbw_synth_head_plant(&h, 10, 2, 11, true, 1), (int)SBW_EINVAL); /* k > m */
    SBW_ASSERT_EQ(sbw_synth_head_check(10, SBW_SYNTH_HEAD_DMAX + 1, 0), (int)SBW_EINVAL);
    SBW_ASSERT_OK(sbw_synth_head_check(3, 2, 0)); /* the smallest head: m - k = d + 1 */
    SBW_ASSERT_OK(sbw_synth_head_plant(&h, 10, 2, 2, true, 1));
    sbw_synth_head_free(&h);
}

/* sbw_argmax_run (exact, certificates checked) on small heads: planted
 * words unargmaxable (below_hull with a bias, in_hull or below_hull
 * without), the rest argmaxable, none undecided; with a bias the lambda
 * certificate's gap is at most 0 (the bias at or below the hull). */
static void test_plant_argmax(void **state)
{
    (void)state;
    static const struct {
        size_t m, d, k;
        bool bias;
        uint64_t seed;
    } cases[] = {{60, 3, 6, true, 1},  {40, 4, 5, false, 2}, {30, 2, 8, true, 3},
                 {80, 6, 10, true, 4}, {12, 5, 6, false, 5}, {200, 5, 4, true, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sbw_synth_head h = {0};
        SBW_ASSERT_OK(sbw_synth_head_plant(&h, cases[c].m, cases[c].d, cases[c].k, cases[c].bias,
                                           cases[c].seed));
        sbw_argmax_word *ans = calloc(h.m, sizeof *ans);
        assert_non_null(ans);
        sbw_argmax_opts o = sbw_argmax_defaults();
        sbw_argmax_summary sum = {0};
        SBW_ASSERT_OK(sbw_argmax_run(h.w, h.m, h.d, h.d, h.b, NULL, h.m, &o, ans, NULL, &sum));
        SBW_ASSERT_EQ(sum.undecided, 0);
        SBW_ASSERT_EQ(sum.unargmaxable, cases[c].k);
        for (size_t i = 0; i < h.m; i++) {
            SBW_ASSERT_EQ(ans[i].word, i);
            SBW_ASSERT_EQ(ans[i].argmaxable, h.planted[i] ? 0 : 1);
            if (h.planted[i] && h.b) {
                SBW_ASSERT_EQ(ans[i].reason, SBW_ARGMAX_BELOW);
                SBW_ASSERT_LE(ans[i].margin, 0.0);
            }
        }
        free(ans);
        sbw_synth_head_free(&h);
    }
}

/* The same seed gives the same bytes; another seed a different W, b and
 * (here) planted set; the bias draws interleave, so the unbiased head of
 * a seed has another W but the same planted positions (drawn first). */
static void test_plant_seed(void **state)
{
    (void)state;
    const size_t m = 300, d = 7, k = 12;
    sbw_synth_head a = {0}, b = {0}, c = {0}, n = {0};
    SBW_ASSERT_OK(sbw_synth_head_plant(&a, m, d, k, true, 42));
    SBW_ASSERT_OK(sbw_synth_head_plant(&b, m, d, k, true, 42));
    SBW_ASSERT_OK(sbw_synth_head_plant(&c, m, d, k, true, 43));
    SBW_ASSERT_OK(sbw_synth_head_plant(&n, m, d, k, false, 42));
    assert_true(same_bytes(a.w, b.w, m * d * sizeof *a.w));
    assert_true(same_bytes(a.b, b.b, m * sizeof *a.b));
    assert_true(same_bytes(a.planted, b.planted, m * sizeof *a.planted));
    assert_false(same_bytes(a.w, c.w, m * d * sizeof *a.w));
    assert_false(same_bytes(a.b, c.b, m * sizeof *a.b));
    assert_false(same_bytes(a.planted, c.planted, m * sizeof *a.planted));
    assert_null(n.b);
    assert_false(same_bytes(a.w, n.w, m * d * sizeof *a.w));
    assert_true(same_bytes(a.planted, n.planted, m * sizeof *a.planted));
    sbw_synth_head_free(&a);
    sbw_synth_head_free(&b);
    sbw_synth_head_free(&c);
    sbw_synth_head_free(&n);
}

/* Lines of a text file into buf (cap bytes, NUL-terminated). */
static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* The files read back: W and b bit for bit, the planted indices and the
 * names as listed by the head's own planted flags. */
static void test_write(void **state)
{
    (void)state;
    sbw_synth_head h = {0};
    SBW_ASSERT_OK(sbw_synth_head_plant(&h, 20, 3, 3, true, 7));
    char w[512], b[512], p[512], v[512];
    snprintf(w, sizeof w, "%s", sbw_test_path("W.npy"));
    snprintf(b, sizeof b, "%s", sbw_test_path("b.npy"));
    snprintf(p, sizeof p, "%s", sbw_test_path("planted.txt"));
    snprintf(v, sizeof v, "%s", sbw_test_path("vocab.txt"));
    sbw_synth_head_paths paths = {.w = w, .b = b, .planted = p, .vocab = v};
    SBW_ASSERT_OK(sbw_synth_head_write(&h, &paths));
    sbw_mat wm = {0}, bm = {0};
    sbw_npy_info info;
    SBW_ASSERT_OK(sbw_npy_load(w, &wm, &info));
    SBW_ASSERT_EQ(wm.rows, 20);
    SBW_ASSERT_EQ(wm.cols, 3);
    assert_true(same_bytes(wm.data, h.w, 60 * sizeof(double)));
    SBW_ASSERT_OK(sbw_npy_load(b, &bm, &info));
    SBW_ASSERT_EQ(info.ndim, 1);
    assert_true(same_bytes(bm.data, h.b, 20 * sizeof(double)));
    char want_p[256] = "", want_v[512] = "", got[1024], line[32];
    for (size_t j = 0; j < h.m; j++) {
        snprintf(line, sizeof line, "%s%zu\n", h.planted[j] ? "in" : "v", j);
        strcat(want_v, line);
        snprintf(line, sizeof line, "%zu\n", j);
        if (h.planted[j])
            strcat(want_p, line);
    }
    slurp(p, got, sizeof got);
    assert_string_equal(got, want_p);
    slurp(v, got, sizeof got);
    assert_string_equal(got, want_v);
    sbw_mat_free(&wm);
    sbw_mat_free(&bm);
    for (int i = 0; i < 4; i++)
        unlink((const char *[]){w, b, p, v}[i]);

    /* W to a full device: its flush fails at the commit, after b, planted
     * and vocab were committed: they are removed again */
    paths.w = "/dev/full";
    assert_int_not_equal(sbw_synth_head_write(&h, &paths), 0);
    assert_non_null(strstr(sbw_error_reason(), "/dev/full"));
    for (int i = 0; i < 3; i++)
        SBW_ASSERT_NE(access((const char *[]){b, p, v}[i], F_OK), 0);
    /* a vocabulary in a missing folder: nothing written at all */
    paths.w = w;
    paths.vocab = sbw_test_path("no/such/dir/vocab.txt");
    assert_int_not_equal(sbw_synth_head_write(&h, &paths), 0);
    for (int i = 0; i < 3; i++)
        SBW_ASSERT_NE(access((const char *[]){w, b, p}[i], F_OK), 0);
    /* a bias path for a head without one, and no W path: refused */
    sbw_synth_head nb = {0};
    SBW_ASSERT_OK(sbw_synth_head_plant(&nb, 20, 3, 3, false, 7));
    paths.vocab = v;
    SBW_ASSERT_EQ(sbw_synth_head_write(&nb, &paths), (int)SBW_EINVAL);
    paths.w = NULL;
    SBW_ASSERT_EQ(sbw_synth_head_write(&h, &paths), (int)SBW_EINVAL);
    SBW_ASSERT_NE(access(w, F_OK), 0);
    sbw_synth_head_free(&nb);
    sbw_synth_head_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plant_plane),
        cmocka_unit_test(test_plant_argmax),
        cmocka_unit_test(test_plant_seed),
        cmocka_unit_test(test_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
