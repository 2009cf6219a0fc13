/*
 * sim.h - simulations of kpair's verdict rule with kpair's own code: the
 * samples are drawn here, everything else (the tests, the family rule, the
 * intervals, the verdicts, the failure rule, the advice and the bisect search)
 * is harness/ as kpair runs it. Header-only, like unit.h, so that the unit test
 * (tests/unit/t-verdict-sim.c: the properties, asserted) and the report
 * (tests/sim/sim-verdicts.c, `make sim`: the tables) share it.
 *
 * Noise models, each a multiplicative noise of coefficient of variation cv:
 * normal, lognormal, heavy (Student t with 3 degrees of freedom), outlier (normal,
 * and one run in ten 10 cv slower), quantized (normal, rounded to a grid of cv).
 * Metrics of one run can share a factor (rho: the correlation between them).
 */
#ifndef KPAIR_TEST_SIM_H
#define KPAIR_TEST_SIM_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect-search.h"
#include "compare.h"
#include "verdict.h"

#define SIM_MAX_M 64
#define SIM_MAX_N 1000

enum noise { NOISE_NORMAL, NOISE_LOGNORMAL, NOISE_HEAVY, NOISE_OUTLIER, NOISE_QUANT, NOISE_N };
static const char *const noise_names[] = { "normal", "lognormal", "t3", "outlier", "quantized" };

/* one value around 1 with noise @kind of @cv, from the standard normal @z (shared part mixed in) */
static inline double sim_value(gsl_rng *r, enum noise kind, double cv, double z)
{
	double s, v;

	switch (kind) {
	case NOISE_LOGNORMAL:
		s = sqrt(log1p(cv * cv));
		return exp(s * z - s * s / 2);
	case NOISE_HEAVY:	/* t3 scaled to unit variance, then cv */
		return 1 + cv * gsl_ran_tdist(r, 3) / sqrt(3.0);
	case NOISE_OUTLIER:
		v = 1 + cv * z;
		return gsl_rng_uniform(r) < 0.1 ? v * (1 + 10 * cv) : v;
	case NOISE_QUANT:
		return cv > 0 ? cv * round((1 + cv * z) / cv) : 1;
	default:
		return 1 + cv * z;
	}
}

/* @n runs of @m metrics: v[k][i], metric k's run i, levels lev[k], correlation @rho */
static inline void sim_runs(gsl_rng *r, int m, int n, const double *lev, enum noise kind, double cv,
			    double rho, double v[][SIM_MAX_N])
{
	int i, k;

	for (i = 0; i < n; i++) {
		double z0 = gsl_ran_gaussian(r, 1);

		for (k = 0; k < m; k++) {
			double z = sqrt(rho) * z0 + sqrt(1 - rho) * gsl_ran_gaussian(r, 1);

			/* the heavy-tailed and outlier models draw their own noise */
			v[k][i] = 100 * lev[k] * sim_value(r, kind, cv, z);
		}
	}
}

/* an A/B of m metrics, n runs a side, metric k shifted by factor shift[k] on side b */
static inline void sim_ab(gsl_rng *r, struct cmp *c, int m, int n, const double *shift,
			  enum noise kind, double cv, double rho, const char *primary)
{
	static double va[SIM_MAX_M][SIM_MAX_N], vb[SIM_MAX_M][SIM_MAX_N];
	double one[SIM_MAX_M];
	char name[32];
	int k;

	for (k = 0; k < m; k++)
		one[k] = 1;
	sim_runs(r, m, n, one, kind, cv, rho, va);
	sim_runs(r, m, n, shift, kind, cv, rho, vb);
	cmp_init(c, 0.02);
	for (k = 0; k < m; k++) {
		snprintf(name, sizeof(name), "m%02d", k);
		cmp_add_values(c, 0, name, "s", BETTER_LOWER, va[k], n);
		cmp_add_values(c, 1, name, "s", BETTER_LOWER, vb[k], n);
	}
	if (primary)
		cmp_set_primary(c, primary, PRIMARY_OPTION);
	cmp_compute(c);
}

/* A/A: how often the rule calls any metric changed (false alarms), and an exit 1 */
struct aa_rates {
	double any_change, any_regressed, primary_change, secondary_change;
};

static inline void sim_aa(gsl_rng *r, int m, int n, enum noise kind, double cv, double rho,
			  int with_primary, int trials, struct aa_rates *out)
{
	double one[SIM_MAX_M];
	int t, k, any, reg, prim, sec;

	memset(out, 0, sizeof(*out));
	for (k = 0; k < m; k++)
		one[k] = 1;
	for (t = 0; t < trials; t++) {
		struct cmp c;

		sim_ab(r, &c, m, n, one, kind, cv, rho, with_primary ? "m00" : NULL);
		any = reg = prim = sec = 0;
		for (k = 0; k < c.n; k++) {
			int ch = verdict_changed(c.m[k].c.verdict);

			any |= ch;
			reg |= c.m[k].c.verdict == V_REGRESSED;
			if (k == c.primary)
				prim |= ch;
			else
				sec |= ch;
		}
		out->any_change += any;
		out->any_regressed += reg;
		out->primary_change += prim;
		out->secondary_change += sec;
		cmp_release(&c);
	}
	out->any_change /= trials;
	out->any_regressed /= trials;
	out->primary_change /= trials;
	out->secondary_change /= trials;
}

/*
 * A/B with every metric shifted: the share of metrics the rule calls changed,
 * the share of trials where it calls at least 80 % of them, and the same share
 * under the rule kpair had before (exact Mann-Whitney, Holm over all metrics)
 */
struct shift_rates {
	double called, most_called, old_called;
};

static inline void sim_shifted(gsl_rng *r, int m, int n, const double *shift, enum noise kind,
			       double cv, double rho, int trials, struct shift_rates *out)
{
	int t, k;

	memset(out, 0, sizeof(*out));
	for (t = 0; t < trials; t++) {
		double p[SIM_MAX_M], adj[SIM_MAX_M];
		struct cmp c;
		int called = 0, old = 0;

		sim_ab(r, &c, m, n, shift, kind, cv, rho, NULL);
		for (k = 0; k < c.n; k++) {
			called += verdict_changed(c.m[k].c.verdict);
			p[k] = c.m[k].c.p_mw;
		}
		holm_adjust(p, c.n, adj);
		for (k = 0; k < c.n; k++)
			old += adj[k] < STATS_ALPHA && (c.m[k].c.ratio_lo > 1 || c.m[k].c.ratio_hi < 1);
		out->called += (double)called / m;
		out->old_called += (double)old / m;
		out->most_called += called >= 0.8 * m;
		cmp_release(&c);
	}
	out->called /= trials;
	out->old_called /= trials;
	out->most_called /= trials;
}

/* one metric: how often the printed 95 % interval holds the true ratio */
static inline double sim_coverage(gsl_rng *r, int n, enum noise kind, double cv, double ratio,
				  int trials)
{
	static double va[1][SIM_MAX_N], vb[1][SIM_MAX_N];
	double one = 1;
	int t, hit = 0, shown = 0;

	for (t = 0; t < trials; t++) {
		struct comparison c;

		sim_runs(r, 1, n, &one, kind, cv, 0, va);
		sim_runs(r, 1, n, &ratio, kind, cv, 0, vb);
		compare_samples(va[0], n, vb[0], n, &c);
		if (isnan(c.ratio_lo))
			continue;
		shown++;
		hit += c.ratio_lo <= ratio && ratio <= c.ratio_hi;
	}
	return shown ? (double)hit / shown : NAN;
}

/* one metric, one shift: the share of A/Bs with each verdict */
static inline void sim_verdicts(gsl_rng *r, int n, enum noise kind, double cv, double ratio,
				int trials, double *share)
{
	static double va[1][SIM_MAX_N], vb[1][SIM_MAX_N];
	double one = 1;
	int t, v;

	for (v = 0; v < V_NVERDICT; v++)
		share[v] = 0;
	for (t = 0; t < trials; t++) {
		struct comparison c;

		sim_runs(r, 1, n, &one, kind, cv, 0, va);
		sim_runs(r, 1, n, &ratio, kind, cv, 0, vb);
		compare_samples(va[0], n, vb[0], n, &c);
		decide(&c, 0, 0.02, STATS_ALPHA);
		share[c.verdict] += 1.0 / trials;
	}
}

/*
 * ab's run loop with failures: runs in pairs until @runs ok a side, a failed
 * run retried (--retries 1); more than runs + retries failures on a side give
 * up (exit 3). Side s fails with probability fail[s], a guest failure when
 * @guest (a panic), else the host's (QEMU killed). Two A/A metrics at cv 1 %.
 * Returns the share of A/Bs that end with exit 0.
 */
static inline double sim_failures(gsl_rng *r, const double *fail, int guest, int runs, int trials)
{
	int t, passes = 0;

	for (t = 0; t < trials; t++) {
		int ok[2] = { 0, 0 }, failed[2] = { 0, 0 }, s, gave_up = 0;
		json_t *res[2] = { json_array(), json_array() }, *x;
		struct cmp c;
		size_t k;

		while (!gave_up && (ok[0] < runs || ok[1] < runs)) {
			for (s = 0; s < 2 && !gave_up; s++) {
				int attempt;

				if (ok[s] >= runs)
					continue;
				for (attempt = 0; attempt < 2; attempt++) {	/* the run and its retry */
					if (gsl_rng_uniform(r) < fail[s]) {
						json_array_append_new(res[s], json_pack("{s:s}", "status",
							guest ? "kernel-panic" : "qemu-died"));
						if (++failed[s] > runs + 1)
							gave_up = 1;
						continue;
					}
					json_array_append_new(res[s], json_pack(
						"{s:s, s:{s:{s:s, s:[f]}, s:{s:s, s:[f]}}}", "status", "ok",
						"samples", "a_s", "unit", "s", "values",
						100 * (1 + 0.01 * gsl_ran_gaussian(r, 1)), "b_s", "unit", "s",
						"values", 100 * (1 + 0.01 * gsl_ran_gaussian(r, 1))));
					ok[s]++;
					break;
				}
			}
		}
		cmp_init(&c, 0.02);
		for (s = 0; s < 2; s++)
			json_array_foreach(res[s], k, x)
				cmp_add_result(&c, s, x);
		cmp_compute(&c);
		passes += !gave_up && outcome_exit(cmp_outcome(&c)) == 0;
		cmp_release(&c);
		json_decref(res[0]);
		json_decref(res[1]);
	}
	return (double)passes / trials;
}

/*
 * calibrate's advice: the runs a side kpair recommends for a shift @delta of one
 * metric among @m at spread @cv, and the power measured at that n (the metric
 * alone shifted, the others not); also at Lehr's n = 16 cv^2 / delta^2
 */
struct advice {
	int n, lehr;
	double power, lehr_power;
};

static inline double sim_power_one(gsl_rng *r, int m, int n, double cv, double delta, int trials)
{
	double shift[SIM_MAX_M];
	int t, k, hits = 0;

	for (k = 0; k < m; k++)
		shift[k] = k ? 1 : 1 + delta;
	for (t = 0; t < trials; t++) {
		struct cmp c;

		sim_ab(r, &c, m, n, shift, NOISE_NORMAL, cv, 0, NULL);
		hits += c.m[0].c.verdict == V_REGRESSED;
		cmp_release(&c);
	}
	return (double)hits / trials;
}

static inline void sim_advice(gsl_rng *r, int m, double cv, double delta, int trials,
			      struct advice *a)
{
	a->n = runs_for_change(cv, log1p(delta), m > 1 ? STATS_ALPHA / m : STATS_ALPHA,
			       VERDICT_POWER);
	a->lehr = (int)ceil(16.0 * cv * cv / (delta * delta));
	if (a->lehr < 1)
		a->lehr = 1;
	a->power = a->n > 0 && a->n <= SIM_MAX_N ? sim_power_one(r, m, a->n, cv, delta, trials) : NAN;
	a->lehr_power = sim_power_one(r, m, a->lehr, cv, delta, trials);
}

/* bisect: points 0..n, the regression e at point @bad, noise cv; samples kept per pair */
struct sim_bisect {
	gsl_rng *r;
	int n, bad;
	double effect, cv;
	enum noise kind;
	double *a[16][16], *b[16][16];	/* samples of pair (i, j), grown as runs are added */
	int have[16][16];
	long boots;
};

static inline double sim_level(const struct sim_bisect *s, int i)
{
	return i >= s->bad ? 1 + s->effect : 1;
}

static inline int sim_measure(void *ctx, int i, int j, int runs, struct comparison *c)
{
	struct sim_bisect *s = ctx;
	int k;

	if (!s->a[i][j]) {
		s->a[i][j] = calloc(SIM_MAX_N, sizeof(double));
		s->b[i][j] = calloc(SIM_MAX_N, sizeof(double));
	}
	for (k = s->have[i][j]; k < runs; k++) {
		s->a[i][j][k] = 100 * sim_level(s, i) * sim_value(s->r, s->kind, s->cv,
								 gsl_ran_gaussian(s->r, 1));
		s->b[i][j][k] = 100 * sim_level(s, j) * sim_value(s->r, s->kind, s->cv,
								 gsl_ran_gaussian(s->r, 1));
		s->boots += 2;
	}
	if (runs > s->have[i][j])
		s->have[i][j] = runs;
	compare_samples(s->a[i][j], s->have[i][j], s->b[i][j], s->have[i][j], c);
	decide(c, 0, 0.02, STATS_ALPHA);	/* the bisect's metric is the A/B's primary */
	return 0;
}

struct bisect_rates {
	double right, wrong, unresolved, infeasible, none, boots;
};

static inline void sim_bisect(gsl_rng *r, int n, double effect, double cv, int runs, int max_runs,
			      int trials, struct bisect_rates *out)
{
	int t, i, j;

	memset(out, 0, sizeof(*out));
	for (t = 0; t < trials; t++) {
		struct sim_bisect s = { .r = r, .n = n, .effect = effect, .cv = cv,
					.kind = NOISE_NORMAL };
		struct bisect_search bs = { .n = n, .threshold = 0.02, .runs = runs,
					    .max_runs = max_runs, .measure = sim_measure, .ctx = &s };

		s.bad = 1 + (int)gsl_rng_uniform_int(r, n);
		bisect_search_run(&bs);
		out->right += bs.end == BISECT_FOUND && bs.first_bad == s.bad;
		out->wrong += bs.end == BISECT_FOUND && bs.first_bad != s.bad;
		out->unresolved += bs.end == BISECT_UNRESOLVED;
		out->infeasible += bs.end == BISECT_INFEASIBLE;
		out->none += bs.end == BISECT_NO_REGRESSION;
		out->boots += s.boots;
		for (i = 0; i < 16; i++)
			for (j = 0; j < 16; j++) {
				free(s.a[i][j]);
				free(s.b[i][j]);
			}
	}
	out->right /= trials;
	out->wrong /= trials;
	out->unresolved /= trials;
	out->infeasible /= trials;
	out->none /= trials;
	out->boots /= trials;
}

#endif
