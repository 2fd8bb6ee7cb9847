/* sbw_verify_lms.h -- the LMS paper's theorems (Ganea et al. 2019,
 * sections 3-4, appendices A, B, E): Theorem 1 (Eckart-Young), Theorem 5
 * (Amini et al. 2012), Theorem 6 (x^2 makes rank N-1 full rank), Theorem 2
 * (min cross-entropy = max entropy).  One result per setting. */
#ifndef SBW_VERIFY_LMS_H
#define SBW_VERIFY_LMS_H

#include "sbw_verify.h"

/* The claims, each an sbw_verify_fn (sbw_verify.h): results appended to
 * out; on failure out keeps the results appended before it (a valid list:
 * sbw_verify_list_free). */
int sbw_verify_lms_theorem1(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_lms_theorem5(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_lms_theorem6(const sbw_verify_opts *o, sbw_verify_list *out);
int sbw_verify_lms_theorem2(const sbw_verify_opts *o, sbw_verify_list *out);

#endif
