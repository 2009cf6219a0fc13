/*
 * t-stats.c - golden tests of harness/stats.c. Expected values were computed
 * independently of kpair, with Debian 12's python3-scipy 1.10.1 and numpy:
 *   exact Mann-Whitney p: brute force over every split of the pooled sample
 *     (itertools.combinations, scipy.stats.rankdata mid-ranks, two-sided:
 *     |W - E[W]| >= observed); equals scipy.stats.mannwhitneyu(method='exact')
 *     where there are no ties;
 *   asymptotic p: scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True);
 *   Welch p: scipy.stats.ttest_ind(equal_var=False);
 *   summaries: numpy.mean, numpy.std(ddof=1), numpy.median, numpy.quantile;
 *   Holm: the step-down procedure of Holm (1979) worked by hand.
 * The primary-endpoint case is worked by hand too: 5 vs 5 fully apart gives the smallest
 * exact p, 2/252 = 0.0079; eight metrics in one Holm family multiply it by 8.
 */
#include "unit.h"

#include <math.h>

#include "compare.h"
#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void assert_close(double got, double want, double tol)
{
	if (isnan(want)) {
		if (!isnan(got))
			fail_msg("got %.12g, want NaN", got);
		return;
	}
	if (!(fabs(got - want) <= tol * fmax(1.0, fabs(want))))
		fail_msg("got %.12g, want %.12g", got, want);
}

static void test_summary(void **state)
{
	static const double x[] = { 3.1, 2.9, 3.3, 3.0, 2.8 };
	struct summary s;

	(void)state;
	summarize(x, N(x), &s);
	assert_int_equal(s.n, 5);
	assert_close(s.mean, 3.02, 1e-12);
	assert_close(s.stddev, 0.192353840617, 1e-9);
	assert_close(s.median, 3.0, 1e-12);
	assert_close(s.p90, 3.22, 1e-12);
	assert_close(s.min, 2.8, 0);
	assert_close(s.max, 3.3, 0);
	assert_close(s.cv, 0.192353840617 / 3.02, 1e-9);
}

static void test_summary_n1_n0(void **state)
{
	static const double x[] = { 7 };
	struct summary s;

	(void)state;
	summarize(x, 1, &s);
	assert_close(s.median, 7, 0);
	assert_true(isnan(s.stddev) && isnan(s.cv));
	summarize(x, 0, &s);
	assert_true(isnan(s.median) && isnan(s.mean));
}

struct mw_case {
	double a[8], b[8];
	size_t na, nb;
	double p_exact, p_welch;
};

static const struct mw_case mw_cases[] = {
	{ { 1, 2, 3 }, { 4, 5, 6 }, 3, 3, 0.1, 0.0213116411288 },
	/* ties across the groups */
	{ { 1, 2, 2, 3 }, { 2, 3, 3, 4, 5 }, 4, 5, 0.111111111111, 0.0695243694991 },
	/* n = 1: Welch is undefined */
	{ { 5 }, { 6, 7 }, 1, 2, 0.666666666667, NAN },
	/* identical samples: every split ties */
	{ { 2, 2, 2 }, { 2, 2, 2 }, 3, 3, 1.0, 1.0 },
	/* zero variance, different values */
	{ { 1, 1, 1 }, { 2, 2, 2 }, 3, 3, 0.1, 0.0 },
	{ { 3.1, 2.9, 3.3, 3.0, 2.8 }, { 3.4, 3.2, 3.6, 3.5, 3.05 }, 5, 5, 0.0555555555556, 0.0374689353855 },
};

static void test_mann_whitney_exact(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(mw_cases); i++) {
		const struct mw_case *c = &mw_cases[i];
		int exact = 0;
		double p = mann_whitney_p(c->a, c->na, c->b, c->nb, &exact);

		assert_true(exact);
		assert_close(p, c->p_exact, 1e-9);
		/* symmetric in its arguments */
		assert_close(mann_whitney_p(c->b, c->nb, c->a, c->na, NULL), c->p_exact, 1e-9);
	}
}

static void test_welch(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < N(mw_cases); i++) {
		const struct mw_case *c = &mw_cases[i];

		assert_close(welch_p(c->a, c->na, c->b, c->nb), c->p_welch, 1e-8);
	}
}

static const double a25[] = { 10.346, 10.822, 10.33, 8.697, 10.905, 10.446, 9.463, 10.581, 10.365,
			      10.294, 10.028, 10.547, 9.264, 9.837, 9.518, 10.599, 10.04, 9.708,
			      9.218, 9.743, 10.008, 9.724, 11.294, 11.007, 7.289 };
static const double b25[] = { 8.911, 10.625, 10.378, 11.014, 11.017, 12.918, 9.688, 10.422,
			      12.843, 11.447, 11.463, 10.286, 9.152, 10.967, 10.909, 9.573, 10.117,
			      10.728, 9.855, 10.702, 10.895, 10.836, 10.294, 11.394, 11.691 };

static void test_mann_whitney_asymptotic(void **state)
{
	int exact = 1;

	(void)state;
	assert_close(mann_whitney_p(a25, 25, b25, 25, &exact), 0.0076314266826, 1e-8);
	assert_false(exact);
	assert_close(welch_p(a25, 25, b25, 25), 0.00660981582396, 1e-8);
}

static void test_min_p(void **state)
{
	(void)state;
	assert_close(mann_whitney_min_p(3, 3), 0.1, 1e-12);		/* 2 / C(6,3) */
	assert_close(mann_whitney_min_p(5, 5), 2.0 / 252, 1e-12);	/* 2 / C(10,5) */
	assert_close(mann_whitney_min_p(1, 1), 1.0, 1e-12);
}

static void test_holm(void **state)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	/* sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 -> max(0.04, 0.06) */
	static const double want[] = { 0.03, 0.06, 0.06, 0.02, NAN };
	double adj[N(p)];
	size_t i;

	(void)state;
	holm_adjust(p, N(p), adj);
	for (i = 0; i < N(p); i++)
		assert_close(adj[i], want[i], 1e-12);
}

static void test_ratio_ci(void **state)
{
	double a[40], b[40], r, lo, hi, r2, lo2, hi2;
	size_t i;

	(void)state;
	/* b is a exactly scaled by 1.1: every bootstrap ratio is near 1.1 */
	for (i = 0; i < N(a); i++)
		a[i] = 100 + (double)((i * 37) % 11);
	for (i = 0; i < N(a); i++)
		b[i] = a[(i * 7) % N(a)] * 1.1;
	assert_int_equal(ratio_ci(a, N(a), b, N(b), &r, &lo, &hi), 0);
	assert_close(r, 1.1, 1e-12);
	assert_true(lo <= r && r <= hi);
	assert_true(lo > 1.03 && hi < 1.17);
	/* fixed seed: the same data give the same interval */
	ratio_ci(a, N(a), b, N(b), &r2, &lo2, &hi2);
	assert_true(lo == lo2 && hi == hi2);
	/* identical constant samples: a point interval at 1 */
	for (i = 0; i < N(a); i++)
		a[i] = b[i] = 5;
	ratio_ci(a, N(a), b, N(b), &r, &lo, &hi);
	assert_true(r == 1 && lo == 1 && hi == 1);
	/* a zero median has no ratio */
	a[0] = 0;
	assert_int_equal(ratio_ci(a, 1, b, 1, &r, &lo, &hi), -1);
	assert_true(isnan(r));
}

static void test_verdicts(void **state)
{
	static const double s3[] = { 10, 10.1, 9.9 }, f3[] = { 7, 7.1, 6.9 };
	double a[12], b[12];
	struct comparison c;
	size_t i;

	(void)state;
	/* 3 vs 3 with a 30 % drop: no rank test can say so; the engine must not say no-change */
	compare_samples(s3, 3, f3, 3, &c);
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_INCONCLUSIVE);
	assert_contains(c.why, "cannot reach p < 0.05");
	/* 12 vs 12, patched 20 % faster on a lower-is-better metric */
	for (i = 0; i < 12; i++) {
		a[i] = 10 + 0.05 * (double)(i % 5);
		b[i] = 8 + 0.05 * (double)((i * 3) % 5);
	}
	compare_samples(a, 12, b, 12, &c);
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_IMPROVED);
	decide(&c, 1, 0.02);
	assert_int_equal(c.verdict, V_REGRESSED);
	/* the same distribution on both sides: no change within 2 % */
	for (i = 0; i < 12; i++)
		b[i] = a[(i * 5) % 12];
	compare_samples(a, 12, b, 12, &c);
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_NO_CHANGE);
	/* n = 1 */
	compare_samples(a, 1, b, 12, &c);
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_INCONCLUSIVE);
	assert_contains(c.why, "too few runs");
}

/* constant, all-zero and zero-on-one-side samples: a verdict or a reason, never a wrong one */
static void test_degenerate(void **state)
{
	static const double z[] = { 0, 0, 0, 0, 0 }, k[] = { 5, 5, 5, 5, 5 };
	static const double v[] = { 5, 5.2, 4.9, 5.1, 5.05 };
	struct comparison c;

	(void)state;
	compare_samples(z, 5, z, 5, &c);	/* 0 / 0: no ratio, yet nothing changed */
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_NO_CHANGE);
	assert_contains(c.why, "every run 0 on both sides");
	compare_samples(k, 5, k, 5, &c);
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_NO_CHANGE);
	compare_samples(z, 5, v, 5, &c);	/* stock 0: no ratio, and not "too few runs" */
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_INCONCLUSIVE);
	assert_contains(c.why, "stock median is 0");
	compare_samples(z, 1, k, 1, &c);
	decide(&c, 0, 0.02);
	assert_int_equal(c.verdict, V_INCONCLUSIVE);
	assert_contains(c.why, "too few runs (1 vs 1)");
}

/* the table's change and CI columns keep their width for any magnitude */
static void test_change_format(void **state)
{
	char b[32];

	(void)state;
	fmt_change(b, sizeof(b), 1.123);
	assert_string_equal(b, "+12.3%");
	fmt_change(b, sizeof(b), 100.999);
	assert_string_equal(b, "+9999.9%");
	fmt_change(b, sizeof(b), 50634.13);
	assert_string_equal(b, "x50634");
	fmt_change(b, sizeof(b), 5.1e6);
	assert_string_equal(b, "x5.1e+06");
	fmt_change(b, sizeof(b), 0);
	assert_string_equal(b, "-100.0%");
	fmt_change(b, sizeof(b), NAN);
	assert_string_equal(b, "-");
	fmt_ci_bound(b, sizeof(b), 0.5);
	assert_string_equal(b, "-50.0");
	fmt_ci_bound(b, sizeof(b), 10.99);
	assert_string_equal(b, "+999.0");
	fmt_ci_bound(b, sizeof(b), 506.3);
	assert_string_equal(b, "x506");
	fmt_ci_bound(b, sizeof(b), 2.5e7);
	assert_string_equal(b, "x2e+07");
}

static void test_claims(void **state)
{
	(void)state;
	/* published -31 % (ratio 0.69), tolerance 50 %: the bound is 0.845 */
	assert_int_equal(claim_check(0.69, 0.60, 0.75, 0.5), CLAIM_REPRODUCED);
	assert_int_equal(claim_check(0.69, 0.80, 0.84, 0.5), CLAIM_REPRODUCED);
	assert_int_equal(claim_check(0.69, 0.90, 0.98, 0.5), CLAIM_NOT_REPRODUCED);
	assert_int_equal(claim_check(0.69, 1.05, 1.20, 0.5), CLAIM_NOT_REPRODUCED);
	assert_int_equal(claim_check(0.69, 0.60, 1.10, 0.5), CLAIM_INCONCLUSIVE);
	/* published +10 % */
	assert_int_equal(claim_check(1.10, 1.06, 1.12, 0.5), CLAIM_REPRODUCED);
	assert_int_equal(claim_check(1.10, 0.99, 1.03, 0.5), CLAIM_NOT_REPRODUCED);
	assert_int_equal(claim_check(1.10, 0.98, 1.30, 0.5), CLAIM_INCONCLUSIVE);
}

static void test_mad_outliers(void **state)
{
	/* median 10.025, MAD 0.075: 14 has a modified z-score of 35.7, 9.9 of 1.1 */
	static const double x[] = { 10, 10.1, 9.9, 10.05, 9.95, 14 };
	static const double flat[] = { 3, 3, 3, 3 };
	size_t idx[6];

	(void)state;
	assert_int_equal(mad_outliers(x, 6, idx), 1);
	assert_int_equal(idx[0], 5);
	assert_int_equal(mad_outliers(x, 5, idx), 0);
	assert_int_equal(mad_outliers(flat, 4, idx), 0);	/* MAD 0: nothing to scale by */
	assert_int_equal(mad_outliers(x, 2, idx), 0);
}

/* @claim NULL: one Holm family of eight; else read_s is the primary endpoint */
static void eight_metrics(struct cmp *c, const char *claim)
{
	static const double fast[] = { 1.0, 1.1, 1.2, 1.3, 1.4 };
	static const double slow[] = { 2.0, 2.1, 2.2, 2.3, 2.4 };
	char name[16];
	int i;

	cmp_init(c, 0.02);
	assert_int_equal(cmp_add_values(c, 0, "read_s", "s", BETTER_LOWER, fast, 5), 0);
	assert_int_equal(cmp_add_values(c, 1, "read_s", "s", BETTER_LOWER, slow, 5), 0);
	for (i = 0; i < 7; i++) {	/* no effect at all: p = 1 */
		snprintf(name, sizeof(name), "other%d_s", i);
		assert_int_equal(cmp_add_values(c, 0, name, "s", BETTER_LOWER, fast, 5), 0);
		assert_int_equal(cmp_add_values(c, 1, name, "s", BETTER_LOWER, fast, 5), 0);
	}
	if (claim)
		cmp_set_claim(c, claim, "lower", NULL, NULL, "+50%", "unit test", NULL);
	cmp_compute(c);
}

static void test_primary_endpoint(void **state)
{
	struct cmp c;

	(void)state;
	eight_metrics(&c, NULL);
	assert_int_equal(c.primary, -1);
	assert_close(c.m[0].c.p_mw, 2.0 / 252, 1e-12);
	assert_close(c.m[0].c.p_adj, 8 * 2.0 / 252, 1e-12);
	assert_int_equal(c.m[0].c.verdict, V_INCONCLUSIVE);
	cmp_release(&c);

	eight_metrics(&c, "read_s");
	assert_int_equal(c.primary, 0);
	assert_close(c.m[0].c.p_adj, 2.0 / 252, 1e-12);	/* alone: not corrected */
	assert_int_equal(c.m[0].c.verdict, V_REGRESSED);
	assert_close(c.m[1].c.p_adj, 1.0, 1e-12);	/* the other seven: Holm among themselves */
	assert_int_equal(c.claim.result, CLAIM_REPRODUCED);
	cmp_release(&c);

	/* a claim on a metric that was not measured names no primary: one family again */
	eight_metrics(&c, "write_s");
	assert_int_equal(c.primary, -1);
	assert_close(c.m[0].c.p_adj, 8 * 2.0 / 252, 1e-12);
	cmp_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_n1_n0),
		cmocka_unit_test(test_mann_whitney_exact),
		cmocka_unit_test(test_welch),
		cmocka_unit_test(test_mann_whitney_asymptotic),
		cmocka_unit_test(test_min_p),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_ratio_ci),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_change_format),
		cmocka_unit_test(test_claims),
		cmocka_unit_test(test_mad_outliers),
		cmocka_unit_test(test_primary_endpoint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
