/* sbw_verify_hidden.h -- the claim that a Softmax head's hidden size can be
 * read off its outputs (Carlini et al. 2024, "Stealing Part of a Production
 * Language Model"; Finlayson, Ren and Swayamdipta 2024, "Logits of
 * API-Protected LLMs Leak Proprietary Information"): the double-centred log
 * Q of N contexts has rank D, and sbw-rank --hidden-size's estimator
 * (analysis/sbw_hidden) finds D exactly from float64 outputs, with a
 * certificate, and from the same outputs rounded to bfloat16.  One result
 * per quantity and setting. */
#ifndef SBW_VERIFY_HIDDEN_H
#define SBW_VERIFY_HIDDEN_H

#include "sbw_verify.h"

/* The claim, an sbw_verify_fn (sbw_verify.h): results appended to out; on
 * failure out keeps the results appended before it (a valid list:
 * sbw_verify_list_free). */
int sbw_verify_hidden_size(const sbw_verify_opts *o, sbw_verify_list *out);

#endif
