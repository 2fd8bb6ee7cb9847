/* sbw_plot_style.c -- the heads' styles and the palette of the rest; see
 * the header. */
#include "sbw_plot_style.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* The heads: Okabe & Ito's colours (2008, "Color Universal Design":
 * distinguishable under the common colour-vision deficiencies; yellow
 * left out, unreadable on white), each with its own filled marker (cairo
 * point types: 7 circle, 5 square, 9 triangle, 11 inverted triangle, 13
 * diamond, 15 pentagon, 3 star) and a dash for grey-scale printing.
 * Mixtape is reserved here before any figure draws it. */
static const struct {
    const char *key, *name;
    unsigned rgb;
    int point, dash;
} heads[] = {
    {"softmax", "Softmax", 0x0072B2, 7, 1}, {"mos", "MoS", 0xD55E00, 5, 2},
    {"moc", "MoC", 0x000000, 9, 4},         {"sigsoftmax", "Sigsoftmax", 0x56B4E9, 11, 5},
    {"lms", "LMS", 0x009E73, 13, 1},        {"plif", "PLIF", 0xCC79A7, 15, 2},
    {"mixtape", "Mixtape", 0xE69F00, 3, 4},
};
#define NHEADS (sizeof heads / sizeof *heads)

/* The rest: Paul Tol's colours that are none of the heads' (wine, indigo,
 * olive, teal, purple, brown, grey-blue), open or line markers (none a
 * head's), dashes cycling. */
static const unsigned others[] = {0x882255, 0x332288, 0x999933, 0x44AA99,
                                  0xAA4499, 0x661100, 0x6699CC};
static const int other_points[] = {6, 4, 8, 10, 12, 14, 1, 2};
static const int dashes[] = {1, 2, 4, 5};
#define NOTHERS       (sizeof others / sizeof *others)
#define NOTHER_POINTS (sizeof other_points / sizeof *other_points)
#define NDASHES       (sizeof dashes / sizeof *dashes)

size_t sbw_plot_style_nheads(void) { return NHEADS; }

const char *sbw_plot_style_head_name(size_t i) { return i < NHEADS ? heads[i].name : NULL; }

int sbw_plot_style_head_of(const char *label)
{
    size_t n = 0;
    while (label[n] && (isalnum((unsigned char)label[n]) || label[n] == '+'))
        n++;
    for (size_t i = 0; i < NHEADS; i++)
        if (strlen(heads[i].key) == n && !strncasecmp(label, heads[i].key, n))
            return (int)i;
    return -1;
}

/* The open marker of a filled one (cairo: filled 5 7 9 11 13 15, open one
 * less); a star stays a star. */
static int open_point(int p) { return p >= 5 && p % 2 ? p - 1 : p; }

sbw_plot_style sbw_plot_style_head(size_t i, size_t v)
{
    int dash = heads[i].dash;
    if (v) { /* another variant of the head: another dash, alternately open */
        size_t k = 0;
        while (k < NDASHES && dashes[k] != dash)
            k++;
        dash = dashes[(k + v) % NDASHES];
    }
    return (sbw_plot_style){heads[i].rgb, v % 2 ? open_point(heads[i].point) : heads[i].point, dash,
                            (int)i};
}

sbw_plot_style sbw_plot_style_other(size_t n)
{
    return (sbw_plot_style){others[n % NOTHERS], other_points[n % NOTHER_POINTS],
                            dashes[(n / NOTHERS) % NDASHES], -1};
}

sbw_plot_style sbw_plot_style_reference(void) { return (sbw_plot_style){0x555555, 1, 2, -1}; }

/* The head that style number id names: the first series with that number
 * whose label names one (plain series do not), or -1. */
static int head_of_id(const sbw_plot_fig *f, int id)
{
    for (size_t i = 0; i < f->npanel; i++)
        for (size_t j = 0; j < f->panel[i]->nseries; j++) {
            const sbw_plot_fig_series *s = f->panel[i]->series[j];
            int h = s->style == id && !s->plain ? sbw_plot_style_head_of(s->label) : -1;
            if (h >= 0)
                return h;
        }
    return -1;
}

/* The position (panel order, then series order) of the first series of f
 * with style number id, at or before position o. */
static size_t first_of_id(const sbw_plot_fig *f, int id, size_t o)
{
    size_t at = 0;
    for (size_t i = 0; i < f->npanel; i++)
        for (size_t j = 0; j < f->panel[i]->nseries; j++, at++)
            if (f->panel[i]->series[j]->style == id || at == o)
                return at;
    return o;
}

void sbw_plot_style_resolve(const sbw_plot_fig *f, sbw_plot_style *out)
{
    size_t o = 0, nother = 0, variants[NHEADS] = {0};
    for (size_t i = 0; i < f->npanel; i++)
        for (size_t j = 0; j < f->panel[i]->nseries; j++, o++) {
            int id = f->panel[i]->series[j]->style;
            size_t first = id > 0 ? first_of_id(f, id, o) : o;
            if (id <= 0) {
                out[o] = sbw_plot_style_reference();
            } else if (first < o) { /* drawn before: the same style */
                out[o] = out[first];
            } else {
                int h = head_of_id(f, id);
                out[o] = h >= 0 ? sbw_plot_style_head((size_t)h, variants[h]++)
                                : sbw_plot_style_other(nother++);
            }
        }
}
