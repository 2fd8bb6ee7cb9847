/* test_fit_optim.c -- Adam against its closed form under a constant
 * gradient, lazy range updates, learning-rate decay; L-BFGS on Rosenbrock
 * and on an ill-conditioned quadratic; argument errors. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_optim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Constant gradient g: m_t = (1 - b1^t) g and v_t = (1 - b2^t) g^2, so
 * every step moves x by exactly lr_t g / (|g| + eps). */
static void test_adam_constant_gradient(void **state)
{
    (void)state;
    sbw_optim_adam a;
    double x[3] = {1, -2, 0.5}, g[3] = {0.5, -3, 1e-3}, want[3];
    double lr = 0.1, eps = 1e-8, decay = 0.9;
    SBW_ASSERT_OK(sbw_optim_adam_alloc(&a, 3, lr, 0.9, 0.999, eps, decay));
    memcpy(want, x, sizeof x);
    for (int t = 0; t < 7; t++) {
        SBW_ASSERT_NEAR(sbw_optim_adam_lr(&a), lr * pow(decay, t), 1e-16);
        sbw_optim_adam_step(&a, x, g, NULL, 0);
        for (int i = 0; i < 3; i++)
            want[i] -= lr * pow(decay, t) * g[i] / (fabs(g[i]) + eps);
    }
    SBW_ASSERT_CLOSE(x, want, 3, 1e-14, 1e-13);
    assert_int_equal(a.t, 7);
    sbw_optim_adam_free(&a);
}

/* Only the listed ranges move; the others keep their moments at 0. */
static void test_adam_ranges(void **state)
{
    (void)state;
    sbw_optim_adam a;
    double x[6] = {0}, g[6] = {1, 1, 1, 1, 1, 1};
    sbw_optim_range r[2] = {{0, 2}, {4, 1}};
    SBW_ASSERT_OK(sbw_optim_adam_alloc(&a, 6, 0.5, 0.9, 0.999, 0, 1));
    sbw_optim_adam_step(&a, x, g, r, 2);
    double want[6] = {-0.5, -0.5, 0, 0, -0.5, 0};
    SBW_ASSERT_CLOSE(x, want, 6, 1e-15, 0);
    SBW_ASSERT_EQ(a.m[2], 0);
    SBW_ASSERT_EQ(a.v[3], 0);
    SBW_ASSERT_EQ(a.m[5], 0);
    sbw_optim_adam_free(&a);
}

static void test_adam_errors(void **state)
{
    (void)state;
    sbw_optim_adam a;
    assert_int_equal(sbw_optim_adam_alloc(&a, 3, 0, 0.9, 0.999, 1e-8, 1), SBW_EINVAL);
    assert_int_equal(sbw_optim_adam_alloc(&a, 3, 0.1, 1.0, 0.999, 1e-8, 1), SBW_EINVAL);
    assert_int_equal(sbw_optim_adam_alloc(&a, 3, 0.1, 0.9, -0.1, 1e-8, 1), SBW_EINVAL);
    assert_int_equal(sbw_optim_adam_alloc(&a, 3, 0.1, 0.9, 0.999, -1, 1), SBW_EINVAL);
    assert_int_equal(sbw_optim_adam_alloc(&a, 3, 0.1, 0.9, 0.999, 1e-8, 1.5), SBW_EINVAL);
    assert_int_equal(sbw_optim_adam_alloc(&a, 3, 0.1, 0.9, 0.999, 1e-8, 0), SBW_EINVAL);
    sbw_optim_lbfgs l;
    assert_int_equal(sbw_optim_lbfgs_alloc(&l, 3, 0), SBW_EINVAL);
}

static int rosenbrock(void *ctx, const double *x, double *f, double *g)
{
    (void)ctx;
    double a = 1 - x[0], b = x[1] - x[0] * x[0];
    *f = a * a + 100 * b * b;
    g[0] = -2 * a - 400 * x[0] * b;
    g[1] = 200 * b;
    return 0;
}

static void test_lbfgs_rosenbrock(void **state)
{
    (void)state;
    sbw_optim_lbfgs l;
    double x[2] = {-1.2, 1}, f, g[2];
    SBW_ASSERT_OK(sbw_optim_lbfgs_alloc(&l, 2, 5));
    rosenbrock(NULL, x, &f, g);
    int st = 0;
    for (int it = 0; it < 200 && !st && f > 1e-24; it++)
        st = sbw_optim_lbfgs_iter(&l, x, &f, g, rosenbrock, NULL);
    /* converged (or stopped at roundoff, which is also at the minimum) */
    if (st != 0)
        SBW_ASSERT_EQ(st, SBW_ENUMERIC);
    SBW_ASSERT_NEAR(x[0], 1, 1e-7);
    SBW_ASSERT_NEAR(x[1], 1, 2e-7);
    SBW_ASSERT_LT(l.iter, 100);
    sbw_optim_lbfgs_free(&l);
}

/* f = 1/2 sum_i c_i (x_i - 1)^2 with c from 1 to 1e3: condition 1e3 (SciPy's
 * L-BFGS-B with maxcor 7 needs 481 iterations to f = 1e-25 on it). */
static int quadratic(void *ctx, const double *x, double *f, double *g)
{
    size_t n = *(size_t *)ctx;
    *f = 0;
    for (size_t i = 0; i < n; i++) {
        double c = pow(1e3, (double)i / (double)(n - 1)), e = x[i] - 1;
        *f += 0.5 * c * e * e;
        g[i] = c * e;
    }
    return 0;
}

static void test_lbfgs_quadratic(void **state)
{
    (void)state;
    size_t n = 51;
    sbw_optim_lbfgs l;
    double x[51] = {0}, g[51], f, ones[51];
    for (size_t i = 0; i < n; i++)
        ones[i] = 1;
    SBW_ASSERT_OK(sbw_optim_lbfgs_alloc(&l, n, 7)); /* history wraps around */
    quadratic(&n, x, &f, g);
    int st = 0;
    for (int it = 0; it < 800 && !st && f > 1e-22; it++)
        st = sbw_optim_lbfgs_iter(&l, x, &f, g, quadratic, &n);
    if (st != 0)
        SBW_ASSERT_EQ(st, SBW_ENUMERIC);
    SBW_ASSERT_CLOSE(x, ones, n, 1e-9, 0);
    SBW_ASSERT_EQ(l.count, 7);
    sbw_optim_lbfgs_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_adam_constant_gradient),
        cmocka_unit_test(test_adam_ranges),
        cmocka_unit_test(test_adam_errors),
        cmocka_unit_test(test_lbfgs_rosenbrock),
        cmocka_unit_test(test_lbfgs_quadratic),
    };
    return cmocka_run_group_tests_name("fit_optim", tests, NULL, NULL);
}
