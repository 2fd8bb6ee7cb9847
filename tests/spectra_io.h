/* spectra_io.h -- matrices saved to the test's temporary directory and
 * their spectra read back through the .npy path, for the suites of
 * sbw_spectra and sbw_reduce (header-only, static). */
#ifndef SPECTRA_IO_H
#define SPECTRA_IO_H

#include "sbw_test.h"

#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_spectra.h"

#include <stdlib.h>
#include <string.h>

/* a saved as name (in dtype t) in the test's directory; the returned path
 * is the caller's to free. */
static inline char *save_tmp(const char *name, const sbw_mat *a, sbw_npy_dtype t)
{
    char *p = strdup(sbw_test_path(name));
    SBW_ASSERT_OK(sbw_npy_save(p, a, t));
    return p;
}

/* sbw_spectra_compute on the file at path; its status. */
static inline int spectra_of(const char *path, const sbw_reduce_opts *o, unsigned want,
                             sbw_spectra *sp)
{
    sbw_npy_reader *r = NULL;
    int st = sbw_npy_open(&r, path);
    if (!st)
        st = sbw_spectra_compute(r, o, want, sp);
    sbw_npy_close(r);
    return st;
}

#endif
