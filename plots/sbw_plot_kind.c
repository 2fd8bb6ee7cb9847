/* sbw_plot_kind.c -- the kinds of sbw-plot: the registry and the
 * dispatcher.  Each kind lives in its own module (sbw_plot_kind.h). */
#include "sbw_plot_kind.h"

#include "sbw_error.h"
#include "sbw_plot_alpha.h"
#include "sbw_plot_bound.h"
#include "sbw_plot_group.h"
#include "sbw_plot_monotone.h"
#include "sbw_plot_sel.h"
#include "sbw_plot_spectrum.h"

#include <stdio.h>
#include <string.h>

typedef int (*builder)(sbw_plot_fig *, const sbw_plot_kind_args *);

/* The registry: one line per kind, in the order --help lists them. */
static const struct {
    const char *name;
    builder build;
} kinds[] = {
    {"spectrum", sbw_plot_spectrum_build}, {"sweep", sbw_plot_group_sweep},
    {"alpha", sbw_plot_alpha_build},       {"bound", sbw_plot_bound_build},
    {"train", sbw_plot_group_train},       {"monotone", sbw_plot_monotone_build},
    {"rank-k", sbw_plot_group_rank_k},
};
#define NKINDS (sizeof kinds / sizeof *kinds)

const char *sbw_plot_kind_names(void)
{
    static char names[256];
    if (!names[0])
        for (size_t i = 0, o = 0; i < NKINDS; i++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? " " : "", kinds[i].name);
    return names;
}

bool sbw_plot_kind_known(const char *kind)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (!strcmp(kind, kinds[i].name))
            return true;
    return false;
}

int sbw_plot_kind_build(const char *kind, const sbw_plot_kind_args *a, sbw_plot_fig **f)
{
    *f = NULL;
    size_t i = 0;
    while (i < NKINDS && strcmp(kind, kinds[i].name) != 0)
        i++;
    if (i == NKINDS)
        return SBW_ERROR(SBW_EINVAL, "unknown kind '%s' (kinds: %s)", kind, sbw_plot_kind_names());
    if (!a->ninputs)
        return SBW_ERROR(SBW_EINVAL, "%s: no input given", kind);
    bool grouped = kinds[i].build == sbw_plot_group_sweep ||
                   kinds[i].build == sbw_plot_group_train ||
                   kinds[i].build == sbw_plot_group_rank_k;
    if (a->logy_of && !grouped)
        return SBW_ERROR(SBW_EINVAL, "--logy-of: %s has no --y columns (sweep, train, rank-k do)",
                         kind);
    char lab[8];
    int st = sbw_plot_sel_label_of(a, 0, "", lab, sizeof lab); /* the count, before any reading */
    st = st ? st : sbw_plot_fig_alloc(f, kind);
    st = st ? st : kinds[i].build(*f, a);
    if (st) {
        sbw_plot_fig_free(*f);
        *f = NULL;
    }
    return st;
}
