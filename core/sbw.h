/* sbw.h -- libsbw, the Softmax Bottleneck Workbench library: one include
 * for the core modules. */
#ifndef SBW_H
#define SBW_H

#include "sbw_blas.h"
#include "sbw_check.h"
#include "sbw_cli.h"
#include "sbw_error.h"
#include "sbw_file.h"
#include "sbw_mat.h"
#include "sbw_npy.h"
#include "sbw_num.h"
#include "sbw_preflight.h"
#include "sbw_progress.h"
#include "sbw_rng.h"
#include "sbw_signal.h"
#include "sbw_table.h"

#endif
