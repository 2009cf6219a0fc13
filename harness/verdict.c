/* verdict.c - one metric's test, interval and verdict, and the runs a side a verdict needs */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "verdict.h"

const char *const verdict_names[V_NVERDICT] = {
	"improved", "regressed", "no-change", "inconclusive", "improved-small", "regressed-small"
};
const char *const scale_names[] = { "ratio", "difference" };
const char *const claim_names[] = { "reproduced", "not-reproduced", "inconclusive" };

int verdict_find(const char *name)
{
	int i;

	for (i = 0; i < V_NVERDICT; i++)
		if (!strcmp(name, verdict_names[i]))
			return i;
	return -1;
}

int verdict_changed(enum verdict v)
{
	return v == V_IMPROVED || v == V_REGRESSED || v == V_IMPROVED_SMALL || v == V_REGRESSED_SMALL;
}

double combined_p(double p_mw, double p_welch)
{
	double p = isnan(p_mw) ? p_welch : isnan(p_welch) ? p_mw : fmin(p_mw, p_welch);

	return isnan(p) ? p : fmin(1.0, 2 * p);
}

static int all_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(x[i] > 0))
			return 0;
	return 1;
}

void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     struct comparison *c)
{
	struct welch w;

	memset(c, 0, sizeof(*c));
	summarize(a, na, &c->a);
	summarize(b, nb, &c->b);
	c->ratio = c->ratio_lo = c->ratio_hi = NAN;
	c->diff = c->diff_lo = c->diff_hi = NAN;
	c->ratio_medians = c->a.median != 0 ? c->b.median / c->a.median : NAN;
	/* a run that measured 0 (or less) has no logarithm: the difference is compared */
	c->scale = all_positive(a, na) && all_positive(b, nb) ? SCALE_RATIO : SCALE_DIFFERENCE;
	welch_test(a, na, b, nb, c->scale == SCALE_RATIO, STATS_CONFIDENCE, &w);
	if (c->scale == SCALE_RATIO) {
		c->ratio = w.est;
		c->ratio_lo = w.lo;
		c->ratio_hi = w.hi;
	} else {
		c->diff = w.est;
		c->diff_lo = w.lo;
		c->diff_hi = w.hi;
	}
	c->sd = w.sd;
	c->df = w.df;
	c->p_mw = mann_whitney_p(a, na, b, nb, &c->mw_exact);
	c->p_welch = w.p;
	c->p = combined_p(c->p_mw, c->p_welch);
	c->p_adj = c->p;
	c->runs_to_decide = -1;
	c->verdict = V_INCONCLUSIVE;
}

/* P(T > x) for T ~ t(df) shifted by @delta: the power of Welch's test, normal approximation */
static double power_at(double delta, double crit, double df)
{
	return gsl_cdf_tdist_Q(crit - delta, df);
}

int runs_for_change(double sd, double effect, double level, double power)
{
	int n;

	if (isnan(sd) || isnan(effect) || effect == 0 || !(level > 0))
		return -1;
	if (sd == 0)
		return VERDICT_MIN_RUNS;
	for (n = VERDICT_MIN_RUNS; n <= VERDICT_MAX_RUNS; n++) {
		/* Welch's degrees of freedom at their fewest for n a side: n - 1 */
		double df = n - 1.0, se = sd * sqrt(2.0 / n);
		/* Welch's half of the test must reach level / 2 */
		double crit = gsl_cdf_tdist_Qinv(level / 4, df);

		if (power_at(fabs(effect) / se, crit, df) >= power)
			return n;
	}
	return -1;
}

int runs_for_interval(double sd, double distance, double conf, double power)
{
	int n;

	if (isnan(sd) || isnan(distance) || !(distance > 0))
		return -1;
	if (sd == 0)
		return VERDICT_MIN_RUNS;
	for (n = VERDICT_MIN_RUNS; n <= VERDICT_MAX_RUNS; n++) {
		double df = n - 1.0, se = sd * sqrt(2.0 / n);

		if (power_at(distance / se, gsl_cdf_tdist_Qinv((1 - conf) / 2, df), df) >= power)
			return n;
	}
	return -1;
}

int runs_for_no_change(double sd, double effect, double band, double power)
{
	/* the interval's far end must stay inside the band: it strays less than band - |effect| */
	return runs_for_interval(sd, band - fabs(effect), STATS_CONFIDENCE, power);
}

int runs_for_rank_level(double level)
{
	int n;

	for (n = 1; n <= VERDICT_MAX_RUNS; n++)
		if (2 * mann_whitney_min_p(n, n) <= level)
			return n;
	return -1;
}

/* the change on the test's scale: log ratio or difference */
static double effect_of(const struct comparison *c)
{
	return c->scale == SCALE_RATIO ? log(c->ratio) : c->diff;
}

/* the no-change band on the test's scale */
static double band_of(const struct comparison *c, double threshold)
{
	if (c->scale == SCALE_RATIO)
		return log1p(threshold);
	/* a difference: the threshold of the larger side's typical value */
	return threshold * fmax(fabs(c->a.median), fabs(c->b.median));
}

/* the interval on the test's scale */
static void interval_of(const struct comparison *c, double *lo, double *hi)
{
	if (c->scale == SCALE_RATIO) {
		*lo = log(c->ratio_lo);
		*hi = log(c->ratio_hi);
	} else {
		*lo = c->diff_lo;
		*hi = c->diff_hi;
	}
}

/* "... : about 12 runs a side would decide it" for an inconclusive metric */
static void add_runs_hint(struct comparison *c, double threshold, double alone_level)
{
	double e = effect_of(c), band = band_of(c, threshold);
	int nc = runs_for_change(c->sd, e, alone_level, VERDICT_POWER);
	int nn = runs_for_no_change(c->sd, e, band, VERDICT_POWER);
	size_t len = strlen(c->why);

	/* the verdict the data lean to: a change beyond the band, else no change */
	c->runs_to_decide = fabs(e) >= band || nn < 0 ? nc : nc < 0 ? nn : nc < nn ? nc : nn;
	if (c->runs_to_decide > 0 && (size_t)c->runs_to_decide > c->a.n)
		snprintf(c->why + len, sizeof(c->why) - len,
			 "; about %d runs a side would decide it at this spread", c->runs_to_decide);
	else if (c->runs_to_decide < 0)
		snprintf(c->why + len, sizeof(c->why) - len,
			 "; more than %d runs a side would be needed at this spread", VERDICT_MAX_RUNS);
}

static void describe_test(char *buf, size_t len, const struct comparison *c)
{
	int welch = isnan(c->p_mw) || (!isnan(c->p_welch) && c->p_welch < c->p_mw);

	snprintf(buf, len, "%s", welch ? (c->scale == SCALE_RATIO ? "Welch on log values" :
					  "Welch") : "Mann-Whitney");
}

void decide(struct comparison *c, int higher_is_better, double threshold, double alone_level)
{
	double lo, hi, band = band_of(c, threshold), nul = c->scale == SCALE_RATIO ? 1 : 0;
	const char *what = c->scale == SCALE_RATIO ? "the ratio CI" : "the CI of the difference";
	char test[32];
	int sig, inside;

	c->verdict = V_INCONCLUSIVE;
	c->runs_to_decide = -1;
	if (c->a.n < 2 || c->b.n < 2) {
		snprintf(c->why, sizeof(c->why), "too few runs (%zu vs %zu)", c->a.n, c->b.n);
		return;
	}
	/* every run the same value, the same on both sides: no ratio needed (0 / 0 has none) */
	if (c->a.min == c->a.max && c->b.min == c->b.max && c->a.min == c->b.min) {
		c->verdict = V_NO_CHANGE;
		snprintf(c->why, sizeof(c->why), "every run %.6g on both sides", c->a.min);
		return;
	}
	interval_of(c, &lo, &hi);
	describe_test(test, sizeof(test), c);
	sig = !isnan(c->p_adj) && c->p_adj < STATS_ALPHA && (lo > 0 || hi < 0);
	inside = lo >= -band && hi <= band;
	if (sig) {
		int up = c->scale == SCALE_RATIO ? c->ratio > 1 : c->diff > 0;
		int better = up == !!higher_is_better;

		if (inside) {
			c->verdict = better ? V_IMPROVED_SMALL : V_REGRESSED_SMALL;
			snprintf(c->why, sizeof(c->why), "p %.3g < %.2f (%s) and %s excludes %g, but lies "
				 "inside +/- %.0f%%: a real change smaller than the threshold", c->p_adj,
				 STATS_ALPHA, test, what, nul, threshold * 100);
		} else {
			c->verdict = better ? V_IMPROVED : V_REGRESSED;
			snprintf(c->why, sizeof(c->why), "p %.3g < %.2f (%s) and %s excludes %g",
				 c->p_adj, STATS_ALPHA, test, what, nul);
		}
		if (c->scale == SCALE_DIFFERENCE) {
			size_t len = strlen(c->why);

			snprintf(c->why + len, sizeof(c->why) - len, "; judged on the difference: %s",
				 c->a.median == 0 ? "the stock median is 0" : "a run measured 0 or less");
		}
		return;
	}
	if (inside) {
		c->verdict = V_NO_CHANGE;
		snprintf(c->why, sizeof(c->why), "%s inside %s +/- %.0f%%",
			 c->scale == SCALE_RATIO ? "ratio CI" : "CI of the difference",
			 c->scale == SCALE_RATIO ? "1" : "0", threshold * 100);
		return;
	}
	if (c->scale == SCALE_RATIO)
		snprintf(c->why, sizeof(c->why), "p %.3g and ratio CI %.3f-%.3f: neither a change nor "
			 "within +/- %.0f%%", c->p_adj, c->ratio_lo, c->ratio_hi, threshold * 100);
	else
		snprintf(c->why, sizeof(c->why), "p %.3g and CI of the difference %.4g to %.4g: neither "
			 "a change nor within +/- %.0f%% (%s)", c->p_adj, c->diff_lo, c->diff_hi,
			 threshold * 100, c->a.median == 0 ? "the stock median is 0" :
			 "a run measured 0 or less");
	add_runs_hint(c, threshold, alone_level);
}

enum claim_result claim_check(double pub, double lo, double hi, double tol)
{
	double bound = 1 + (1 - tol) * (pub - 1);

	if (isnan(lo) || isnan(hi) || isnan(pub))
		return CLAIM_INCONCLUSIVE;
	if (pub < 1) {
		if (hi < 1 && lo <= bound)
			return CLAIM_REPRODUCED;
		if (lo > bound)
			return CLAIM_NOT_REPRODUCED;
	} else if (pub > 1) {
		if (lo > 1 && hi >= bound)
			return CLAIM_REPRODUCED;
		if (hi < bound)
			return CLAIM_NOT_REPRODUCED;
	} else {
		if (lo >= 1 - tol && hi <= 1 + tol)
			return CLAIM_REPRODUCED;
		if (lo > 1 + tol || hi < 1 - tol)
			return CLAIM_NOT_REPRODUCED;
	}
	return CLAIM_INCONCLUSIVE;
}
