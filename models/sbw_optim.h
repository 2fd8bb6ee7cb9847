/* sbw_optim.h -- the optimisers of sbw-fit: Adam and L-BFGS over a flat
 * double parameter vector.
 *
 * Adam (Kingma & Ba 2015) in PyTorch's form (torch.optim.Adam, no weight
 * decay, no amsgrad), so that a PyTorch reference run follows the same
 * trajectory: at step t = 1, 2, ...
 *   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,
 *   x -= (lr_t / (1 - b1^t)) m / (sqrt(v) / sqrt(1 - b2^t) + eps),
 * with lr_t = lr * decay^(t-1) (torch's ExponentialLR stepped after each
 * step; decay = 1 means none).  A step may update only some ranges of x
 * (a minibatch's rows of H: "lazy" Adam as torch.optim.SparseAdam), the
 * bias corrections use the global t.
 *
 * L-BFGS (Nocedal & Wright, Numerical Optimization, 2nd ed., Alg. 7.4 two-
 * loop recursion with H0 = (s'y / y'y) I, Alg. 3.5/3.6 line search for the
 * strong Wolfe conditions, c1 = 1e-4, c2 = 0.9, cubic interpolation with
 * safeguards), full batch.
 */
#ifndef SBW_OPTIM_H
#define SBW_OPTIM_H

#include <stddef.h>
#include <stdint.h>

typedef struct sbw_optim_adam {
    double lr, beta1, beta2, eps, decay;
    size_t n;
    double *m, *v; /* (n) moments */
    uint64_t t;    /* steps taken */
} sbw_optim_adam;

/* A range [off, off + len) of the parameter vector. */
typedef struct sbw_optim_range {
    size_t off, len;
} sbw_optim_range;

/* Allocates Adam's state for n parameters (moments zero, t = 0).  Errors:
 * SBW_EINVAL (lr <= 0, betas outside [0, 1), eps < 0, decay outside
 * (0, 1]), SBW_ENOMEM.  *a is zeroed on failure (nothing to free). */
int sbw_optim_adam_alloc(sbw_optim_adam *a, size_t n, double lr, double beta1, double beta2,
                         double eps, double decay);
void sbw_optim_adam_free(sbw_optim_adam *a);

/* The learning rate the next step will use. */
double sbw_optim_adam_lr(const sbw_optim_adam *a);

/* One Adam step: t += 1, then updates x (n) from grad (n) on the given
 * ranges (all of x when ranges is NULL).  OpenMP-parallel over entries:
 * each entry's update is independent, so the result does not depend on the
 * thread count. */
void sbw_optim_adam_step(sbw_optim_adam *a, double *x, const double *grad,
                         const sbw_optim_range *ranges, size_t nranges);

/* f(x) and its gradient g (n) at x (n); returns a status. */
typedef int (*sbw_optim_fn)(void *ctx, const double *x, double *f, double *g);

typedef struct sbw_optim_lbfgs {
    size_t n, mem;       /* parameters, history pairs kept */
    double *s, *y;       /* (mem, n) steps and gradient changes, ring buffer */
    double *rho;         /* (mem) 1 / (y's) */
    size_t count, head;  /* pairs stored, slot of the next pair */
    double *d, *xt, *gt; /* (n) direction, trial point, trial gradient */
    double *alpha;       /* (mem) two-loop scratch */
    uint64_t iter, nfev; /* iterations done, function evaluations */
} sbw_optim_lbfgs;

/* Allocates L-BFGS state for n parameters with mem >= 1 pairs.  Errors:
 * SBW_EINVAL, SBW_ENOMEM; on failure *l holds no memory (every buffer
 * NULL, n and mem set or zeroed: sbw_optim_lbfgs_free is safe). */
int sbw_optim_lbfgs_alloc(sbw_optim_lbfgs *l, size_t n, size_t mem);
void sbw_optim_lbfgs_free(sbw_optim_lbfgs *l);

/* One L-BFGS iteration from x with f = f(x), g = grad f(x): direction,
 * line search, history update; x, f, g become the new point.  When the
 * search along the quasi-Newton direction fails, the history is dropped
 * and steepest descent is tried.  Errors: SBW_ENUMERIC when no step
 * decreases f (converged to roundoff, or f is not smooth there), or a
 * status returned by fn.  On failure x, f and g are untouched (the last
 * accepted point: every trial is made in l's own buffers) and the history
 * may have been dropped. */
int sbw_optim_lbfgs_iter(sbw_optim_lbfgs *l, double *x, double *f, double *g, sbw_optim_fn fn,
                         void *ctx);

#endif
