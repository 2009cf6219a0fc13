/*
 * t-verdict-sim.c - the verdict rule's promises, checked by simulation with
 * kpair's own code (tests/sim/sim.h; `make sim` prints the full tables). Each
 * bound is the promise plus about three Monte Carlo standard errors, so a rule
 * that breaks it fails here and one that keeps it passes whatever the seed.
 */
#include "unit.h"
#include "sim.h"

static gsl_rng *rng;

static void seed(unsigned long s)
{
	if (!rng)
		rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, s);
}

/* A/A with 15 metrics, 5 runs a side: a false verdict in at most 5 % of A/As, every noise */
static void test_aa_error_rate(void **state)
{
	struct aa_rates a;
	int k, rho;

	(void)state;
	seed(1);
	for (k = 0; k < NOISE_N; k++)
		for (rho = 0; rho < 2; rho++) {
			sim_aa(rng, 15, 5, k, 0.01, rho ? 0.8 : 0, 0, 2000, &a);
			if (a.any_change > 0.065)
				fail_msg("A/A %s rho %d: %.1f %% of A/As had a false verdict", noise_names[k],
					 rho, a.any_change * 100);
		}
	/* with a primary: it alone at 5 %, the fourteen others at 5 % */
	sim_aa(rng, 15, 5, NOISE_LOGNORMAL, 0.01, 0.5, 1, 2000, &a);
	assert_true(a.primary_change <= 0.065);
	assert_true(a.secondary_change <= 0.065);
	/* 3 runs a side lean on Welch alone: still within the rate */
	sim_aa(rng, 15, 3, NOISE_NORMAL, 0.01, 0, 0, 2000, &a);
	assert_true(a.any_change <= 0.065);
}

/* the printed interval holds the true change at least 94 % of the time, from 2 runs a side */
static void test_coverage(void **state)
{
	static const int ns[] = { 2, 3, 5, 10 };
	static const double cvs[] = { 0.001, 0.05 };
	int k, i, j;

	(void)state;
	seed(2);
	for (k = 0; k < 2; k++)
		for (i = 0; i < 4; i++)
			for (j = 0; j < 2; j++) {
				double c = sim_coverage(rng, ns[i], k, cvs[j], 1.05, 2000);

				if (c < 0.935)
					fail_msg("coverage %.1f %% at n %d, %s, cv %.1f %%", c * 100, ns[i],
						 noise_names[k], cvs[j] * 100);
			}
}

/* the fio file: 15 metrics moved 2-8 %, clean runs: all called at 5 a side */
static void test_many_metrics_called(void **state)
{
	static const double fio[15] = { 1.06, 0.919, 0.944, 1.06, 1.02, 1.03, 0.95, 1.08,
					1.04, 0.97, 1.05, 0.93, 1.025, 0.96, 1.07 };
	double one[15];
	struct shift_rates x;
	int k;

	(void)state;
	seed(3);
	sim_shifted(rng, 15, 5, fio, NOISE_NORMAL, 0.002, 0.5, 500, &x);
	assert_true(x.called >= 0.99);
	assert_true(x.old_called == 0);	/* what Holm over the rank test gave */
	/* one metric of fifteen moved (+592 %): called, not drowned by the fourteen */
	for (k = 0; k < 15; k++)
		one[k] = k ? 1 : 6.92;
	sim_shifted(rng, 15, 5, one, NOISE_NORMAL, 0.001, 0, 500, &x);
	assert_true(x.called * 15 >= 0.99);
}

/* +0.3 % at a 0.1 % spread: a change, inside the threshold: no exit 1 */
static void test_small_change(void **state)
{
	double sh[V_NVERDICT];

	(void)state;
	seed(4);
	sim_verdicts(rng, 6, NOISE_NORMAL, 0.001, 1.003, 1000, sh);
	assert_true(sh[V_REGRESSED] < 0.01);
	assert_true(sh[V_REGRESSED_SMALL] > 0.9);
}

/* a side that fails 40 % of its runs (panics) rarely passes; a host's failures do not block */
static void test_failures_block(void **state)
{
	static const double flaky[2] = { 0, 0.4 }, host[2] = { 0.1, 0.1 };

	(void)state;
	seed(5);
	assert_true(sim_failures(rng, flaky, 1, 5, 1000) < 0.15);
	assert_true(sim_failures(rng, host, 0, 5, 1000) > 0.95);
}

/* calibrate's runs a side reach the power they state (80 %), with a family of ten */
static void test_advice(void **state)
{
	static const double cvs[] = { 0.01, 0.05 };
	struct advice a;
	int i, m;

	(void)state;
	seed(6);
	for (m = 1; m <= 10; m += 9)
		for (i = 0; i < 2; i++) {
			sim_advice(rng, m, cvs[i], 0.05, 500, &a);
			if (!(a.power >= 0.75))
				fail_msg("m %d cv %.0f %%: %d runs a side give %.1f %% power", m,
					 cvs[i] * 100, a.n, a.power * 100);
		}
}

/* bisect over 10 commits: a 10 % step at cv 5 % named right 90 % of the time; 3 % refused */
static void test_bisect(void **state)
{
	struct bisect_rates b;

	(void)state;
	seed(7);
	sim_bisect(rng, 10, 0.10, 0.05, 5, 40, 300, &b);
	if (b.right < 0.88 || b.wrong > 0.02)
		fail_msg("10 %% at cv 5 %%: right %.1f %%, wrong %.1f %%", b.right * 100, b.wrong * 100);
	sim_bisect(rng, 10, 0.03, 0.05, 5, 40, 200, &b);
	assert_true(b.right + b.wrong < 0.1);
	assert_true(b.infeasible + b.unresolved > 0.85);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aa_error_rate),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_many_metrics_called),
		cmocka_unit_test(test_small_change),
		cmocka_unit_test(test_failures_block),
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_bisect),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	gsl_rng_free(rng);
	return ret;
}
