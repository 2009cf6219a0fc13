/* stats.c - summaries, bootstrap ratio CI, Mann-Whitney, Welch, Holm and verdicts (GSL) */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

const char *const verdict_names[] = { "improved", "regressed", "no-change", "inconclusive" };
const char *const claim_names[] = { "reproduced", "not-reproduced", "inconclusive" };

static double *sorted_copy(const double *x, size_t n)
{
	double *c = xcalloc(n, sizeof(double));

	memcpy(c, x, n * sizeof(double));
	gsl_sort(c, 1, n);
	return c;
}

void summarize(const double *x, size_t n, struct summary *s)
{
	double *c;

	s->n = n;
	s->mean = s->median = s->stddev = s->cv = s->min = s->max = NAN;
	s->p50 = s->p90 = s->p99 = NAN;
	if (!n)
		return;
	c = sorted_copy(x, n);
	s->mean = gsl_stats_mean(c, 1, n);
	s->median = gsl_stats_median_from_sorted_data(c, 1, n);
	s->min = c[0];
	s->max = c[n - 1];
	s->p50 = gsl_stats_quantile_from_sorted_data(c, 1, n, 0.50);
	s->p90 = gsl_stats_quantile_from_sorted_data(c, 1, n, 0.90);
	s->p99 = gsl_stats_quantile_from_sorted_data(c, 1, n, 0.99);
	if (n > 1) {
		s->stddev = gsl_stats_sd_m(c, 1, n, s->mean);
		s->cv = s->mean != 0 ? s->stddev / fabs(s->mean) : NAN;
	}
	free(c);
}

struct ranked {
	double v;
	int group;
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return (a->v > b->v) - (a->v < b->v);
}

/*
 * Doubled mid-ranks (integers even with ties) of the pooled sample, in
 * pooled order; *w gets group a's doubled rank sum and *tie the tie term
 * sum(t^3 - t) for the normal approximation.
 */
static long *pooled_ranks(const double *a, size_t na, const double *b, size_t nb,
			  long *w, double *tie)
{
	size_t n = na + nb, i, j;
	struct ranked *r = xcalloc(n, sizeof(*r));
	long *rank2 = xcalloc(n, sizeof(long));

	for (i = 0; i < na; i++)
		r[i] = (struct ranked){ a[i], 0 };
	for (i = 0; i < nb; i++)
		r[na + i] = (struct ranked){ b[i], 1 };
	qsort(r, n, sizeof(*r), cmp_ranked);
	*w = 0;
	*tie = 0;
	for (i = 0; i < n; i = j) {
		for (j = i; j < n && r[j].v == r[i].v; j++)
			;
		/* ranks i+1..j share (i+1+j)/2; doubled: i+1+j */
		for (size_t k = i; k < j; k++) {
			rank2[k] = (long)(i + 1 + j);
			if (r[k].group == 0)
				*w += rank2[k];
		}
		*tie += pow((double)(j - i), 3) - (double)(j - i);
	}
	free(r);
	return rank2;
}

/*
 * Exact null distribution of the doubled rank sum of na items drawn from
 * the pooled ranks: count[k][s] ways to pick k items summing to s, by
 * dynamic programming over the items. Two-sided p: the probability of a sum
 * at least as far from its mean as the one observed.
 */
static double mw_exact(const long *rank2, size_t n, size_t na, long w)
{
	long maxs = 0, s;
	size_t i, k;
	double *cnt, total = 0, tail = 0, mean;

	for (i = 0; i < n; i++)
		maxs += rank2[i];
	cnt = xcalloc((na + 1) * (size_t)(maxs + 1), sizeof(double));
#define C(k, s) cnt[(k) * (size_t)(maxs + 1) + (size_t)(s)]
	C(0, 0) = 1;
	for (i = 0; i < n; i++)
		for (k = (i + 1 < na ? i + 1 : na); k >= 1; k--)
			for (s = maxs; s >= rank2[i]; s--)
				C(k, s) += C(k - 1, s - rank2[i]);
	mean = (double)na * (double)(n + 1);	/* doubled */
	for (s = 0; s <= maxs; s++) {
		double c = C(na, s);

		total += c;
		if (fabs((double)s - mean) >= fabs((double)w - mean) - 1e-9)
			tail += c;
	}
#undef C
	free(cnt);
	return total > 0 ? fmin(1.0, tail / total) : NAN;
}

double mann_whitney_p(const double *a, size_t na, const double *b, size_t nb, int *exact)
{
	size_t n = na + nb;
	double tie, p, mu, sigma2, u, z;
	long w, *rank2;

	if (exact)
		*exact = 0;
	if (!na || !nb)
		return NAN;
	rank2 = pooled_ranks(a, na, b, nb, &w, &tie);
	if (n <= STATS_EXACT_MAX) {
		if (exact)
			*exact = 1;
		p = mw_exact(rank2, n, na, w);
		free(rank2);
		return p;
	}
	free(rank2);
	/* normal approximation with tie and continuity corrections */
	u = w / 2.0 - na * (na + 1) / 2.0;
	mu = na * nb / 2.0;
	sigma2 = na * nb / 12.0 * ((n + 1) - tie / ((double)n * (n - 1)));
	if (sigma2 <= 0)
		return 1.0;
	z = (fabs(u - mu) - 0.5) / sqrt(sigma2);
	if (z < 0)
		z = 0;
	return fmin(1.0, 2 * gsl_cdf_ugaussian_Q(z));
}

double mann_whitney_min_p(size_t na, size_t nb)
{
	/* the most extreme arrangement, both tails: 2 / C(na + nb, na) */
	double c = 1;
	size_t i;

	for (i = 1; i <= na; i++)
		c = c * (double)(nb + i) / (double)i;
	return fmin(1.0, 2.0 / c);
}

double welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, mb, va, vb, se2, t, df;

	if (na < 2 || nb < 2)
		return NAN;
	ma = gsl_stats_mean(a, 1, na);
	mb = gsl_stats_mean(b, 1, nb);
	va = gsl_stats_variance_m(a, 1, na, ma);
	vb = gsl_stats_variance_m(b, 1, nb, mb);
	se2 = va / na + vb / nb;
	if (se2 == 0)
		return ma == mb ? 1.0 : 0.0;
	t = (ma - mb) / sqrt(se2);
	df = se2 * se2 / ((va / na) * (va / na) / (na - 1) + (vb / nb) * (vb / nb) / (nb - 1));
	return fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(t), df));
}

static double median_of(double *x, size_t n)
{
	gsl_sort(x, 1, n);
	return gsl_stats_median_from_sorted_data(x, 1, n);
}

int ratio_ci(const double *a, size_t na, const double *b, size_t nb, double *ratio,
	     double *lo, double *hi)
{
	double *ra, *rb, *boot, ma, mb;
	gsl_rng *rng;
	size_t i, k, nboot = 0;

	*ratio = *lo = *hi = NAN;
	if (!na || !nb)
		return -1;
	ra = xcalloc(na, sizeof(double));
	rb = xcalloc(nb, sizeof(double));
	memcpy(ra, a, na * sizeof(double));
	memcpy(rb, b, nb * sizeof(double));
	ma = median_of(ra, na);
	mb = median_of(rb, nb);
	if (ma == 0) {
		free(ra);
		free(rb);
		return -1;
	}
	*ratio = mb / ma;
	boot = xcalloc(STATS_BOOTSTRAP, sizeof(double));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, STATS_SEED);
	for (i = 0; i < STATS_BOOTSTRAP; i++) {
		for (k = 0; k < na; k++)
			ra[k] = a[gsl_rng_uniform_int(rng, na)];
		for (k = 0; k < nb; k++)
			rb[k] = b[gsl_rng_uniform_int(rng, nb)];
		ma = median_of(ra, na);
		mb = median_of(rb, nb);
		if (ma != 0)
			boot[nboot++] = mb / ma;
	}
	gsl_rng_free(rng);
	if (nboot) {
		gsl_sort(boot, 1, nboot);
		*lo = gsl_stats_quantile_from_sorted_data(boot, 1, nboot, 0.025);
		*hi = gsl_stats_quantile_from_sorted_data(boot, 1, nboot, 0.975);
	}
	free(boot);
	free(ra);
	free(rb);
	return nboot ? 0 : -1;
}

void holm_adjust(const double *p, size_t m, double *adj)
{
	size_t *idx = xcalloc(m, sizeof(size_t)), i, j, valid = 0;
	double run = 0;

	for (i = 0; i < m; i++) {
		adj[i] = NAN;
		if (!isnan(p[i]))
			idx[valid++] = i;
	}
	/* insertion sort by p: m is the number of metrics in a job */
	for (i = 1; i < valid; i++)
		for (j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (i = 0; i < valid; i++) {
		double v = fmin(1.0, (double)(valid - i) * p[idx[i]]);

		run = fmax(run, v);
		adj[idx[i]] = run;
	}
	free(idx);
}

size_t mad_outliers(const double *x, size_t n, size_t *idx)
{
	double *dev, med, mad;
	size_t i, k = 0;

	if (n < 3)
		return 0;
	dev = xcalloc(n, sizeof(double));
	memcpy(dev, x, n * sizeof(double));
	med = median_of(dev, n);
	for (i = 0; i < n; i++)
		dev[i] = fabs(x[i] - med);
	mad = median_of(dev, n);
	free(dev);
	if (mad == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (0.6745 * fabs(x[i] - med) / mad > 3.5)
			idx[k++] = i;
	return k;
}

void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     struct comparison *c)
{
	memset(c, 0, sizeof(*c));
	summarize(a, na, &c->a);
	summarize(b, nb, &c->b);
	ratio_ci(a, na, b, nb, &c->ratio, &c->ratio_lo, &c->ratio_hi);
	c->p_mw = mann_whitney_p(a, na, b, nb, &c->mw_exact);
	c->p_welch = welch_p(a, na, b, nb);
	c->p_adj = c->p_mw;
	c->verdict = V_INCONCLUSIVE;
}

void decide(struct comparison *c, int higher_is_better, double threshold)
{
	double minp = mann_whitney_min_p(c->a.n, c->b.n);

	c->verdict = V_INCONCLUSIVE;
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
	if (isnan(c->ratio)) {
		snprintf(c->why, sizeof(c->why), "no ratio: the stock median is 0 (p %.3g)", c->p_adj);
		return;
	}
	if (!isnan(c->p_adj) && c->p_adj < STATS_ALPHA && (c->ratio_lo > 1 || c->ratio_hi < 1)) {
		int up = c->ratio_lo > 1;

		c->verdict = up == !!higher_is_better ? V_IMPROVED : V_REGRESSED;
		snprintf(c->why, sizeof(c->why), "p %.3g < %.2f and the ratio CI excludes 1",
			 c->p_adj, STATS_ALPHA);
		return;
	}
	if (c->ratio_lo >= 1 - threshold && c->ratio_hi <= 1 + threshold) {
		c->verdict = V_NO_CHANGE;
		snprintf(c->why, sizeof(c->why), "ratio CI inside 1 +/- %.0f%%", threshold * 100);
		return;
	}
	if (minp >= STATS_ALPHA)
		snprintf(c->why, sizeof(c->why),
			 "%zu vs %zu runs cannot reach p < %.2f (smallest possible p %.3f): add runs",
			 c->a.n, c->b.n, STATS_ALPHA, minp);
	else
		snprintf(c->why, sizeof(c->why), "p %.3g and ratio CI %.3f-%.3f: neither a change nor "
			 "within +/- %.0f%%", c->p_adj, c->ratio_lo, c->ratio_hi, threshold * 100);
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
