/* fuzz_argmax.c -- sbw-argmax's inputs (analysis/sbw_argmax_io) and the
 * heads they give, through sbw_argmax_run: the input is W.npy, then after
 * a line "%%" b.npy (empty: no bias), then after another the --vocab text.
 * W is read as sbw-argmax reads it; a head of at most 40 words and 6
 * dimensions (any finite values: huge, subnormal, repeated rows) is then
 * decided, with the pre-filter or without (the input's length decides),
 * and the names go through the JSON writer.
 *
 * Properties: a failure leaves a reason; the run never fails on a head
 * that read (a GLPK failure is an undecided word); the counts add up;
 * every vertex's h passes the exact check (sbw_argmax_cert_h), every
 * in_hull/below_hull lambda is valid with residual and gap within tol x
 * scale, every duplicate's copy has the same row; the JSON of the names
 * parses (Jansson), whatever their bytes.
 */
#include "fuzz_util.h"

#include "sbw_argmax.h"
#include "sbw_argmax_cert.h"
#include "sbw_argmax_io.h"
#include "sbw_error.h"
#include "sbw_table.h"

#include <jansson.h>
#include <math.h>

enum { MAX_M = 40, MAX_D = 6 };

static void check_answers(const sbw_mat *w, const double *b, const sbw_argmax_word *out,
                          const sbw_argmax_certs *cs, const sbw_argmax_summary *s, double tol)
{
    size_t m = w->rows, d = w->cols;
    FUZZ_REQUIRE(s->checked == m && s->argmaxable + s->unargmaxable + s->undecided == m);
    for (size_t i = 0; i < m; i++) {
        FUZZ_REQUIRE(out[i].word == i);
        if (out[i].argmaxable == 1) {
            sbw_argmax_cert_h_res r;
            sbw_argmax_cert_h(w->data, m, d, w->ld, b, i, cs->h + i * d, &r);
            FUZZ_REQUIRE(r.proven);
        } else if (out[i].reason == SBW_ARGMAX_DUPLICATE || out[i].reason == SBW_ARGMAX_DOMINATED) {
            size_t o = out[i].other;
            FUZZ_REQUIRE(o < m && o != i);
            for (size_t k = 0; k < d; k++) /* equal values (-0 == +0), not bytes */
                FUZZ_REQUIRE(w->data[i * w->ld + k] == w->data[o * w->ld + k]);
            FUZZ_REQUIRE(!b || b[i] <= b[o]);
        } else if (out[i].argmaxable == 0) {
            sbw_argmax_cert_l_res r;
            sbw_argmax_cert_lambda(w->data, m, d, w->ld, b, i, cs->idx + i * cs->cap,
                                   cs->lambda + i * cs->cap, cs->k[i], &r);
            FUZZ_REQUIRE(r.valid);
            FUZZ_REQUIRE(r.residual <= tol * s->scale && r.gap <= tol * s->scale);
        }
    }
}

static void run_head(const sbw_mat *w, const double *b, bool lp_only)
{
    size_t m = w->rows, d = w->cols, cap = d + 2;
    sbw_argmax_word *out = calloc(m, sizeof *out);
    sbw_argmax_certs cs = {calloc(m * d, sizeof(double)), calloc(m * cap, sizeof(size_t)),
                           calloc(m * cap, sizeof(double)), calloc(m, sizeof(size_t)), cap};
    FUZZ_REQUIRE(out && cs.h && cs.idx && cs.lambda && cs.k);
    sbw_argmax_opts o = sbw_argmax_defaults();
    o.no_prefilter = lp_only;
    o.max_rounds = 20;
    o.block = 7;
    sbw_argmax_summary s;
    int st = sbw_argmax_run(w->data, m, d, w->ld, b, NULL, m, &o, out, &cs, &s);
    if (st)
        fprintf(stderr, "sbw fuzz: argmax failed: %s\n", sbw_error_reason());
    FUZZ_REQUIRE(st == SBW_OK);
    check_answers(w, b, out, &cs, &s, o.tol);
    free(out);
    free(cs.h);
    free(cs.idx);
    free(cs.lambda);
    free(cs.k);
}

/* The names as JSON strings: Jansson must parse the table. */
static void check_json(char **names, size_t m)
{
    sbw_table *t = NULL;
    FUZZ_REQUIRE(sbw_table_alloc(&t, "sbw-argmax", NULL, false) == SBW_OK);
    const char *cols[] = {"name"};
    FUZZ_REQUIRE(sbw_table_columns(t, cols, 1) == SBW_OK);
    for (size_t i = 0; i < m; i++) {
        FUZZ_REQUIRE(sbw_table_add_row(t) == SBW_OK);
        FUZZ_REQUIRE(sbw_table_set_str(t, "name", names[i]) == SBW_OK);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    FUZZ_REQUIRE(f && sbw_table_print(t, f, true) == SBW_OK);
    fclose(f);
    json_error_t err;
    json_t *root = json_loadb(buf, len, 0, &err);
    if (!root)
        fprintf(stderr, "sbw fuzz: JSON: %s\n", err.text);
    FUZZ_REQUIRE(root && json_array_size(json_object_get(root, "rows")) == m);
    json_decref(root);
    free(buf);
    sbw_table_free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[3] = {"W.npy", "b.npy", "vocab.txt"};
    const uint8_t *part[3] = {0};
    size_t len[3] = {0};
    size_t n = fuzz_split(data, size, part, len, 3);
    char path[3][512];
    for (size_t k = 0; k < 3; k++)
        fuzz_file(names[k], k < n ? part[k] : data, k < n ? len[k] : 0, path[k], sizeof path[k]);
    sbw_npy_reader *r = NULL;
    size_t m = 0, d = 0;
    if (sbw_argmax_io_open_w(&r, path[0], &m, &d)) {
        FUZZ_REQUIRE(r == NULL && sbw_error_reason()[0] != '\0');
        return 0;
    }
    if (m > MAX_M || d > MAX_D) { /* the reader is fuzz_npy's; keep runs short */
        sbw_npy_close(r);
        return 0;
    }
    sbw_mat w = {0};
    double *b = NULL;
    char **voc = NULL;
    int st = sbw_argmax_io_read_w(r, path[0], &w);
    if (!st && n > 1 && len[1] > 0)
        st = sbw_argmax_io_read_bias(path[1], m, path[0], &b);
    if (!st && n > 2)
        st = sbw_argmax_io_read_vocab(path[2], m, &voc);
    if (st) {
        FUZZ_REQUIRE(sbw_error_reason()[0] != '\0' && !voc); /* b may have read */
    } else {
        FUZZ_REQUIRE(w.rows == m && w.cols == d);
        run_head(&w, b, size % 2);
        if (voc)
            check_json(voc, m);
    }
    sbw_argmax_io_names_free(voc, m);
    free(b);
    sbw_mat_free(&w);
    return 0;
}
