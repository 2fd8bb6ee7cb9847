/* sbw_verify_heads.h -- claims about fitted heads: MoC is Softmax in
 * disguise (MoS section 2.5), Mixtape's log Q exceeds the Softmax
 * bound (Yang et al. 2019) within its gate-sharing bound, monotone maps preserve the order of
 * logits (LMS section 4), and the rank of an exported log Q is the model's, not the storage's (the
 * dtype-aware eps of sbw-rank).  One result per setting. */
#ifndef SBW_VERIFY_HEADS_H
#define SBW_VERIFY_HEADS_H

#include "sbw_verify.h"

/* The claims, each an sbw_verify_fn (sbw_verify.h): results appended to
 * out; on failure out keeps the results appended before it (a valid list:
 * sbw_verify_list_free). */
int sbw_verify_heads_moc(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_heads_mixtape(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_heads_monotone(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_heads_model_rank(const sbw_verify_opts *o, sbw_verify_list *out);

#endif
