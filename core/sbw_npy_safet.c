/* sbw_npy_safet.c -- a .safetensors tensor as what the .npy reader
 * reads (sbw_npy_safet.h). */
#include "sbw_npy_safet.h"

#include "sbw_error.h"
#include "sbw_safet.h"

#include <stdio.h>
#include <string.h>

#define HOST_LITTLE (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

static int safet_dtype(sbw_npy_info *in, const sbw_safet_tensor *t, const char *spec)
{
    static const struct {
        const char *name;
        sbw_npy_dtype dtype;
    } map[] = {{"F64", SBW_F64}, {"F32", SBW_F32}, {"F16", SBW_F16}, {"BF16", SBW_BF16}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (strcmp(t->dtype, map[i].name) == 0) {
            in->dtype = map[i].dtype;
            memcpy(in->descr, map[i].name, strlen(map[i].name) + 1);
            return SBW_OK;
        }
    return SBW_ERROR(SBW_EDTYPE,
                     "%s: unsupported dtype %s (sbw reads safetensors F32, F16, BF16 and F64)",
                     spec, t->dtype);
}

static int safet_info(sbw_npy_info *in, const sbw_safet_header *h, const sbw_safet_tensor *t,
                      const char *spec)
{
    char shape[96];
    sbw_safet_shape_str(t, shape, sizeof shape);
    int st = safet_dtype(in, t, spec);
    if (!st && (t->ndim == 0 || t->ndim > 2))
        st = SBW_ERROR(SBW_EDTYPE, "%s: %d-d tensor (shape %s) is not supported (need 1-d or 2-d)",
                       spec, t->ndim, shape);
    if (st)
        return st;
    in->itemsize = t->itemsize;
    in->swap = !HOST_LITTLE;
    in->ndim = t->ndim;
    in->rows = t->shape[0];
    in->cols = t->ndim == 2 ? t->shape[1] : 1;
    in->data_offset = h->data_offset + t->begin;
    in->data_bytes = t->end - t->begin;
    in->safetensors = true;
    return SBW_OK;
}

static int safet_missing(const sbw_safet_header *h, const char *file, const char *name)
{
    char list[160] = "";
    size_t at = 0;
    for (size_t i = 0; i < h->count && i < 4 && at < sizeof list; i++) {
        int n = snprintf(list + at, sizeof list - at, "%s'%.40s'", i ? ", " : "", h->t[i].name);
        at += n > 0 ? (size_t)n : 0;
    }
    return SBW_ERROR(SBW_EFORMAT,
                     "%s: no tensor named '%s' (it holds %zu: %s%s; sbw-info %s lists them)", file,
                     name, h->count, list, h->count > 4 ? ", ..." : "", file);
}

int sbw_npy_safet_info(const char *spec, const char *file, const char *name, sbw_npy_info *info)
{
    if (!*name)
        return SBW_ERROR(SBW_EINVAL, "%s: no tensor name after ':' (FILE.safetensors:NAME)", spec);
    sbw_safet_header h;
    int st = sbw_safet_load(file, &h);
    if (st)
        return st;
    const sbw_safet_tensor *t = sbw_safet_find(&h, name);
    st = t ? safet_info(info, &h, t, spec) : safet_missing(&h, file, name);
    sbw_safet_header_free(&h);
    return st;
}
