/* head_cases.h -- the heads every model suite runs through: each head of
 * the zoo, with and without a word bias, LMS with its linear term, and
 * sizes small enough for finite differences (header-only, static). */
#ifndef HEAD_CASES_H
#define HEAD_CASES_H

#include "sbw_head.h"

#include <stdbool.h>
#include <stddef.h>

/* Fields in the order the tables read; padding is irrelevant here. */
// NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding)
typedef struct head_case {
    sbw_head_model model;
    size_t k, knots;
    bool bias, linear;
} head_case;

/* Every head once or twice: mos with and without a bias and with one
 * component, lms with the linear term, the monotone maps with a bias.
 * Append new rows: suites name some rows by index. */
static const head_case head_cases[] = {
    {SBW_MODEL_SOFTMAX, 0, 0, false, false},   {SBW_MODEL_SOFTMAX, 0, 0, true, false},
    {SBW_MODEL_SIGSOFTMAX, 0, 0, true, false}, {SBW_MODEL_MOC, 3, 0, true, false},
    {SBW_MODEL_MOS, 3, 0, false, false},       {SBW_MODEL_MOS, 3, 0, true, false},
    {SBW_MODEL_LMS, 3, 0, true, false},        {SBW_MODEL_LMS, 2, 0, false, true},
    {SBW_MODEL_PLIF, 0, 7, true, false},       {SBW_MODEL_MOS_PLIF, 2, 5, true, false},
    {SBW_MODEL_MOS, 1, 0, false, false},       {SBW_MODEL_MIXTAPE, 4, 0, true, false},
    {SBW_MODEL_MIXTAPE, 3, 0, false, false},   {SBW_MODEL_MIXTAPE, 1, 0, true, false},
};

#define HEAD_NCASES (sizeof head_cases / sizeof *head_cases)

#endif
