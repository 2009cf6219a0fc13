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
 *   Holm: the step-down procedure of Holm (1979) worked by hand;
 *   Benjamini-Hochberg: the step-up procedure (1995) worked by hand;
 *   Welch's interval: numpy means and variances (ddof=1), the Welch-Satterthwaite
 *     df and scipy.stats.t.ppf, on log values and raw; its p equals ttest_ind's;
 *   Fisher: scipy.stats.fisher_exact (alternative 'less' for "b fails more").
 * The family cases are worked by hand: 5 vs 5 fully apart gives the smallest exact rank
 * p, 2/252 = 0.0079, doubled 0.0159 (the rule's Bonferroni over its two tests); Welch on
 * those runs is far below it. Eight such metrics under Benjamini-Hochberg keep 0.0159.
 */
#include "unit.h"

#include <math.h>

#include "compare.h"
#include "stats.h"
#include "verdict.h"

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

static void test_bh(void **state)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	/* ranks 1..4: 0.005*4/1 = 0.02, 0.01*4/2 = 0.02, 0.03*4/3 = 0.04, 0.04*4/4 = 0.04 */
	static const double want[] = { 0.02, 0.04, 0.04, 0.02, NAN };
	static const double all[] = { 2.0 / 252, 2.0 / 252, 2.0 / 252 };
	double adj[N(p)];
	size_t i;

	(void)state;
	bh_adjust(p, N(p), adj);
	for (i = 0; i < N(p); i++)
		assert_close(adj[i], want[i], 1e-12);
	/* every p at the floor: nothing to pay for the family when all moved */
	bh_adjust(all, N(all), adj);
	for (i = 0; i < N(all); i++)
		assert_close(adj[i], 2.0 / 252, 1e-12);
}

static void test_welch_interval(void **state)
{
	static const double a[] = { 3.1, 2.9, 3.3, 3.0, 2.8 }, b[] = { 3.4, 3.2, 3.6, 3.5, 3.05 };
	static const double z[] = { 0, 0, 0, 0, 0 }, bz[] = { 76000, 75990, 76010, 76005, 75995 };
	static const double k[] = { 2, 2, 2 }, k2[] = { 3, 3, 3 };
	struct welch w;

	(void)state;
	assert_int_equal(welch_test(a, 5, b, 5, 1, 0.95, &w), 0);
	assert_close(w.est, 1.10904526617, 1e-9);
	assert_close(w.lo, 1.00817997742, 1e-9);
	assert_close(w.hi, 1.22000181512, 1e-9);
	assert_close(w.p, 0.0367815614928, 1e-8);
	assert_close(w.df, 7.96507253564, 1e-8);
	assert_int_equal(welch_test(a, 5, b, 5, 0, 0.95, &w), 0);
	assert_close(w.est, 0.33, 1e-9);
	assert_close(w.lo, 0.024630899462, 1e-8);
	assert_close(w.hi, 0.635369100538, 1e-8);
	assert_close(w.p, 0.0374689353855, 1e-8);
	/* a side with no spread: the other side's df, n - 1 */
	assert_int_equal(welch_test(z, 5, bz, 5, 0, 0.95, &w), 0);
	assert_close(w.lo, 75990.1837842, 1e-9);
	assert_close(w.hi, 76009.8162158, 1e-9);
	assert_close(w.df, 4, 1e-12);
	assert_true(w.p < 1e-15);
	/* no spread on either side: the difference is exact */
	assert_int_equal(welch_test(k, 3, k2, 3, 1, 0.95, &w), 0);
	assert_close(w.est, 1.5, 1e-12);
	assert_true(w.lo == w.est && w.hi == w.est && w.p == 0);
	assert_int_equal(welch_test(k, 3, k, 3, 1, 0.95, &w), 0);
	assert_true(w.p == 1);
	assert_int_equal(welch_test(a, 1, b, 5, 1, 0.95, &w), -1);
	assert_true(isnan(w.est) && isnan(w.p));
}

static void test_fisher(void **state)
{
	(void)state;
	/* stock 0 of 5 failed, patched 3 of 8 */
	assert_close(fisher_exact_p(0, 5, 3, 8, 1), 0.1958041958041958, 1e-12);
	assert_close(fisher_exact_p(0, 5, 3, 8, 0), 0.23076923076923078, 1e-12);
	assert_close(fisher_exact_p(1, 10, 7, 10, 0), 0.019766611097880447, 1e-12);
	assert_close(fisher_exact_p(1, 10, 7, 10, 1), 0.009883305548940223, 1e-12);
	/* the other way round: b fails less, "b fails more" cannot be shown */
	assert_true(fisher_exact_p(7, 10, 1, 10, 1) > 0.99);
	assert_true(isnan(fisher_exact_p(0, 0, 1, 2, 1)));
}

static void test_verdicts(void **state)
{
	static const double s3[] = { 10, 10.1, 9.9 }, f3[] = { 7, 7.1, 6.9 };
	static const double n3[] = { 10, 12, 8 }, m3[] = { 9, 11.5, 8.5 };
	double a[12], b[12];
	struct comparison c;
	size_t i;

	(void)state;
	/* 3 vs 3 with a clean 30 % drop: no rank test can see it, Welch on log values does */
	compare_samples(s3, 3, f3, 3, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_IMPROVED);
	assert_contains(c.why, "Welch on log values");
	assert_close(c.p, 2 * c.p_welch, 1e-12);
	/* 3 vs 3 at a 20 % spread: inconclusive, and it says how many runs would decide */
	compare_samples(n3, 3, m3, 3, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_INCONCLUSIVE);
	assert_true(c.runs_to_decide > 3);
	assert_contains(c.why, "runs a side would decide it");
	/* 12 vs 12, patched 20 % faster on a lower-is-better metric */
	for (i = 0; i < 12; i++) {
		a[i] = 10 + 0.05 * (double)(i % 5);
		b[i] = 8 + 0.05 * (double)((i * 3) % 5);
	}
	compare_samples(a, 12, b, 12, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_IMPROVED);
	decide(&c, 1, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_REGRESSED);
	/* +0.3 % at a 0.15 % spread: real, but inside the 2 % threshold */
	for (i = 0; i < 12; i++) {
		a[i] = 10 + 0.01 * (double)(i % 5);
		b[i] = a[(i * 5) % 12] * 1.003;
	}
	compare_samples(a, 12, b, 12, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_REGRESSED_SMALL);
	assert_contains(c.why, "smaller than the threshold");
	/* the same distribution on both sides: no change within 2 % */
	for (i = 0; i < 12; i++)
		b[i] = a[(i * 5) % 12];
	compare_samples(a, 12, b, 12, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_NO_CHANGE);
	/* n = 1 */
	compare_samples(a, 1, b, 12, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_INCONCLUSIVE);
	assert_contains(c.why, "too few runs");
}

/* constant, all-zero and zero-on-one-side samples: a verdict or a reason, never a wrong one */
static void test_degenerate(void **state)
{
	static const double z[] = { 0, 0, 0, 0, 0 }, k[] = { 5, 5, 5, 5, 5 };
	static const double v[] = { 5, 5.2, 4.9, 5.1, 5.05 };
	static const double mt[] = { 76000, 76000, 76000, 76000, 76000 };
	struct comparison c;

	(void)state;
	compare_samples(z, 5, z, 5, &c);	/* 0 / 0: no ratio, yet nothing changed */
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_NO_CHANGE);
	assert_contains(c.why, "every run 0 on both sides");
	compare_samples(k, 5, k, 5, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_NO_CHANGE);
	/* seed 001's mtime_dirty_delta_us: 0 in every stock run, 76000 in every patched one */
	compare_samples(z, 5, mt, 5, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.scale, SCALE_DIFFERENCE);
	assert_int_equal(c.verdict, V_REGRESSED);
	assert_close(c.diff, 76000, 1e-12);
	assert_contains(c.why, "judged on the difference: the stock median is 0");
	compare_samples(z, 5, v, 5, &c);	/* stock 0: judged on the difference */
	decide(&c, 0, 0.02, STATS_ALPHA);
	assert_int_equal(c.verdict, V_REGRESSED);
	assert_true(isnan(c.ratio) && c.diff_lo > 4.8);
	compare_samples(z, 1, k, 1, &c);
	decide(&c, 0, 0.02, STATS_ALPHA);
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

/*
 * @claim NULL: one Benjamini-Hochberg family of eight; else read_s is the primary.
 * read_s moved (its runs wholly apart, rank p 0.0079, but noisy: Welch p on log values
 * 0.0154), the seven others did not.
 */
static void eight_metrics(struct cmp *c, const char *claim, const char *primary)
{
	static const double fast[] = { 1.0, 1.1, 1.2, 1.3, 1.4 };
	static const double slow[] = { 1.45, 1.6, 1.8, 2.2, 3.0 };
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
	if (primary)
		cmp_set_primary(c, primary, PRIMARY_OPTION);
	cmp_compute(c);
}

static void test_families(void **state)
{
	struct cmp c;

	(void)state;
	eight_metrics(&c, NULL, NULL);
	assert_int_equal(c.primary, -1);
	assert_int_equal(c.secondaries, 8);
	assert_close(c.m[0].c.p_mw, 2.0 / 252, 1e-12);
	assert_close(c.m[0].c.p_welch, 0.015410869107835292, 1e-8);
	assert_close(c.m[0].c.p, 4.0 / 252, 1e-12);
	/* Benjamini-Hochberg: the smallest of eight p times 8 / 1 */
	assert_close(c.m[0].c.p_adj, 32.0 / 252, 1e-12);
	assert_int_equal(c.m[0].c.verdict, V_INCONCLUSIVE);
	assert_int_equal(c.m[1].c.verdict, V_INCONCLUSIVE);	/* a 13 % spread: +/- 2 % unseen */
	assert_int_equal(cmp_outcome(&c), OUTCOME_PASS);
	cmp_release(&c);

	eight_metrics(&c, "read_s", NULL);
	assert_int_equal(c.primary, 0);
	assert_int_equal(c.primary_source, PRIMARY_CLAIM);
	assert_close(c.m[0].c.p_adj, 4.0 / 252, 1e-12);	/* alone: not corrected */
	assert_int_equal(c.m[0].c.verdict, V_REGRESSED);
	assert_int_equal(c.secondaries, 7);
	assert_close(c.m[1].c.p_adj, 1.0, 1e-12);	/* the other seven among themselves */
	assert_int_equal(c.claim.result, CLAIM_REPRODUCED);
	assert_int_equal(cmp_outcome(&c), OUTCOME_REGRESSED);
	assert_int_equal(outcome_exit(cmp_outcome(&c)), 1);
	cmp_release(&c);

	/* --metric names the primary without a claim */
	eight_metrics(&c, NULL, "read_s");
	assert_int_equal(c.primary, 0);
	assert_int_equal(c.primary_source, PRIMARY_OPTION);
	assert_int_equal(c.m[0].c.verdict, V_REGRESSED);
	cmp_release(&c);

	/* a claim on a metric that was not measured names no primary: one family again */
	eight_metrics(&c, "write_s", NULL);
	assert_int_equal(c.primary, -1);
	assert_close(c.m[0].c.p_adj, 8 * c.m[0].c.p, 1e-12);
	cmp_release(&c);
}

/* every metric moved by a clean 6 %: all are called at 5 runs a side (Holm called none) */
static void test_all_moved(void **state)
{
	static const double a[] = { 100, 100.01, 99.99, 100.02, 99.98 };
	double b[5];
	char name[16];
	struct cmp c;
	int i, k;

	(void)state;
	for (k = 0; k < 5; k++)
		b[k] = a[(k + 2) % 5] * 1.06;
	cmp_init(&c, 0.02);
	for (i = 0; i < 15; i++) {
		snprintf(name, sizeof(name), "job%d.bw", i);
		cmp_add_values(&c, 0, name, "MiB/s", BETTER_HIGHER, a, 5);
		cmp_add_values(&c, 1, name, "MiB/s", BETTER_HIGHER, b, 5);
	}
	cmp_compute(&c);
	for (i = 0; i < 15; i++)
		assert_int_equal(c.m[i].c.verdict, V_IMPROVED);
	cmp_release(&c);
}

/* failed runs: Fisher on the counts, and the guest's own failures on one side only */
static void test_failures(void **state)
{
	static const char *const ok_run =
		"{\"status\": \"ok\", \"samples\": {\"t_s\": {\"unit\": \"s\", \"values\": [1.0]}}}";
	struct cmp c;
	json_t *ok = json_loads(ok_run, 0, NULL), *panic = json_pack("{s:s}", "status", "kernel-panic");
	json_t *killed = json_pack("{s:s}", "status", "qemu-died");
	int i;

	(void)state;
	/* stock 5 ok; patched 5 ok and 1 panic: too few to test, not the host's: blocks a pass */
	cmp_init(&c, 0.02);
	for (i = 0; i < 5; i++) {
		cmp_add_result(&c, 0, ok);
		cmp_add_result(&c, 1, ok);
	}
	cmp_add_result(&c, 1, panic);
	cmp_compute(&c);
	assert_int_equal(c.fail.kind, FAIL_UNEXPLAINED);
	assert_int_equal(cmp_outcome(&c), OUTCOME_FAILURES);
	assert_int_equal(outcome_exit(cmp_outcome(&c)), 3);
	cmp_release(&c);
	/* the same with QEMU killed on the host: chance, a pass */
	cmp_init(&c, 0.02);
	for (i = 0; i < 5; i++) {
		cmp_add_result(&c, 0, ok);
		cmp_add_result(&c, 1, ok);
	}
	cmp_add_result(&c, 1, killed);
	cmp_compute(&c);
	assert_int_equal(c.fail.kind, FAIL_CHANCE);
	assert_int_equal(cmp_outcome(&c), OUTCOME_PASS);
	cmp_release(&c);
	/* patched fails 7 of 12, stock none of 5 (host failures): Fisher p 0.0407, a regression */
	cmp_init(&c, 0.02);
	for (i = 0; i < 5; i++) {
		cmp_add_result(&c, 0, ok);
		cmp_add_result(&c, 1, ok);
	}
	for (i = 0; i < 7; i++)
		cmp_add_result(&c, 1, killed);
	cmp_compute(&c);
	assert_int_equal(c.fail.kind, FAIL_MORE);
	assert_close(c.fail.p_more, fisher_exact_p(0, 5, 7, 12, 1), 1e-12);
	assert_int_equal(cmp_outcome(&c), OUTCOME_REGRESSED);
	cmp_release(&c);
	json_decref(ok);
	json_decref(panic);
	json_decref(killed);
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
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_welch_interval),
		cmocka_unit_test(test_fisher),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_change_format),
		cmocka_unit_test(test_claims),
		cmocka_unit_test(test_mad_outliers),
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_all_moved),
		cmocka_unit_test(test_failures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
