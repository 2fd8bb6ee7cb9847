/* sbw_prec.h -- the one vocabulary of sbw's float/double templates.
 *
 * Code needed in both precisions (the LSTM, the language model's chunk
 * pass, a head's per-context pass, centring, the TSQR block transpose,
 * the gesdd singular values) is written once, in a template header
 * FOLDER/sbw_X_tmpl.h (no include guard, not a public header), against
 * these names:
 *   SBW_PREC_T          the real type: float | double
 *   SBW_PREC_FN(name)   this precision's function: name##_f | name##_d
 *   SBW_PREC_PICK(f, d) f in single, d in double: for the names that do not
 *                       follow the suffix rule (the double head kernels,
 *                       sbw_head_kern_X, older than their _f twins; a
 *                       struct's float and double fields)
 *   SBW_PREC_GEMM(g, keep, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)
 *                       the row-major GEMM: sbw_gemm_f (core/sbw_gemm.h:
 *                       float32, or bfloat16 inputs when the context g is
 *                       not NULL; keep flags its operands) | cblas_dgemm
 *                       (g and keep unused)
 *   SBW_PREC_GEMM_FORGET(g, base)  sbw_gemm_forget | nothing
 *   SBW_PREC_GEMM_STATUS(g)        sbw_gemm_status | SBW_OK
 *   SBW_PREC_VEXP       the inline clamped exp of core/sbw_vexp.h:
 *                       sbw_vexpf | sbw_vexp (the .c includes sbw_vexp.h)
 *   SBW_PREC_SINGLE     1 | 0, for an #if where the two precisions take
 *                       different steps (kept to a few lines)
 * The module's .c instantiates the template once per precision, each
 * instance under a line naming every function it defines, so that
 * `grep -rn 'NAME('` finds a generated function as it finds a written one
 * (scripts/check-defs.sh checks this in make lint):
 *
 *     / * defines: sbw_lstm_forward_f(), sbw_lstm_backward_f() * /
 *     #define SBW_PREC 32
 *     #include "sbw_prec.h"
 *     #include "sbw_lstm_tmpl.h"
 *
 * SBW_PREC is 32 (float) or 64 (double).  This header undefines the
 * previous instance's names and SBW_PREC itself, so the next instance is
 * the same three lines; no include guard, on purpose.  A file that needs
 * the precision of its workspace at run time does not branch on it at each
 * call: it picks a table of the instances' functions once, when the
 * workspace is made (lm/sbw_lm.c, models/sbw_pass.c).
 */
#undef SBW_PREC_T
#undef SBW_PREC_FN
#undef SBW_PREC_PICK
#undef SBW_PREC_GEMM
#undef SBW_PREC_GEMM_FORGET
#undef SBW_PREC_GEMM_STATUS
#undef SBW_PREC_VEXP
#undef SBW_PREC_SINGLE

#if SBW_PREC == 32
#define SBW_PREC_T                    float
#define SBW_PREC_FN(name)             name##_f
#define SBW_PREC_PICK(f, d)           f
#define SBW_PREC_GEMM(g, keep, ...)   sbw_gemm_f((g), (keep), __VA_ARGS__)
#define SBW_PREC_GEMM_FORGET(g, base) sbw_gemm_forget((g), (base))
#define SBW_PREC_GEMM_STATUS(g)       sbw_gemm_status(g)
#define SBW_PREC_VEXP                 sbw_vexpf
#define SBW_PREC_SINGLE               1
#elif SBW_PREC == 64
#define SBW_PREC_T          double
#define SBW_PREC_FN(name)   name##_d
#define SBW_PREC_PICK(f, d) d
#define SBW_PREC_GEMM(g, keep, ...)                                                                \
    ((void)(g), (void)(keep), cblas_dgemm(CblasRowMajor, __VA_ARGS__))
#define SBW_PREC_GEMM_FORGET(g, base) ((void)(g), (void)(base))
#define SBW_PREC_GEMM_STATUS(g)       ((void)(g), SBW_OK)
#define SBW_PREC_VEXP                 sbw_vexp
#define SBW_PREC_SINGLE               0
#else
#error "sbw_prec.h: define SBW_PREC as 32 or 64 before including it"
#endif

#undef SBW_PREC
