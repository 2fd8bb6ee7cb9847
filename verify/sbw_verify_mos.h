/* sbw_verify_mos.h -- the MoS paper's claims (Yang et al. 2018, section 2
 * and appendix A): Property 1, Property 2, Lemma 1 / Proposition 1,
 * Corollary 1.  Each appends one result per setting (sbw_verify.h). */
#ifndef SBW_VERIFY_MOS_H
#define SBW_VERIFY_MOS_H

#include "sbw_verify.h"

/* The claims, each an sbw_verify_fn (sbw_verify.h): results appended to
 * out; on failure out keeps the results appended before it (a valid list:
 * sbw_verify_list_free). */
int sbw_verify_mos_property1(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_mos_property2(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_mos_proposition1(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_mos_corollary1(const sbw_verify_opts *o, sbw_verify_list *out);

#endif
