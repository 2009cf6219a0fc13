/* stats.c - summaries, Mann-Whitney, Welch with its interval, Fisher, Holm and Benjamini-Hochberg (GSL) */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "util.h"

static double *sorted_copy(const double *x, size_t n)
{
	double *c = xcalloc(n, sizeof(double));

	memcpy(c, x, n * sizeof(double));
	gsl_sort(c, 1, n);
	return c;
}

static double median_of(double *x, size_t n)
{
	gsl_sort(x, 1, n);
	return gsl_stats_median_from_sorted_data(x, 1, n);
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

static void moments(const double *x, size_t n, int logscale, double *mean, double *var)
{
	double *v = xcalloc(n, sizeof(double));
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = logscale ? log(x[i]) : x[i];
	*mean = gsl_stats_mean(v, 1, n);
	*var = gsl_stats_variance_m(v, 1, n, *mean);
	free(v);
}

int welch_test(const double *a, size_t na, const double *b, size_t nb, int logscale,
	       double conf, struct welch *w)
{
	double ma, mb, va, vb, se2, d, half, q;

	w->est = w->lo = w->hi = w->p = w->df = w->sd = NAN;
	w->logscale = logscale;
	if (na < 2 || nb < 2)
		return -1;
	moments(a, na, logscale, &ma, &va);
	moments(b, nb, logscale, &mb, &vb);
	se2 = va / na + vb / nb;
	d = mb - ma;
	w->sd = sqrt(((na - 1) * va + (nb - 1) * vb) / (double)(na + nb - 2));
	if (se2 == 0) {
		/* no spread on either side: the runs repeat exactly, the difference is exact */
		w->p = d == 0 ? 1.0 : 0.0;
		w->df = (double)(na + nb - 2);
		half = 0;
	} else {
		w->df = se2 * se2 / ((va / na) * (va / na) / (na - 1) +
				     (vb / nb) * (vb / nb) / (nb - 1));
		w->p = fmin(1.0, 2 * gsl_cdf_tdist_Q(fabs(d) / sqrt(se2), w->df));
		q = gsl_cdf_tdist_Qinv((1 - conf) / 2, w->df);
		half = q * sqrt(se2);
	}
	w->est = logscale ? exp(d) : d;
	w->lo = logscale ? exp(d - half) : d - half;
	w->hi = logscale ? exp(d + half) : d + half;
	return 0;
}

double welch_p(const double *a, size_t na, const double *b, size_t nb)
{
	struct welch w;

	welch_test(a, na, b, nb, 0, STATS_CONFIDENCE, &w);
	return w.p;
}

/* hypergeometric probability of @k failures on side a, margins fixed */
static double hyper(long k, long fa_fb, long na, long nb)
{
	return exp(lgamma(na + 1.0) - lgamma(k + 1.0) - lgamma(na - k + 1.0) +
		   lgamma(nb + 1.0) - lgamma(fa_fb - k + 1.0) - lgamma(nb - (fa_fb - k) + 1.0) -
		   (lgamma(na + nb + 1.0) - lgamma(fa_fb + 1.0) - lgamma(na + nb - fa_fb + 1.0)));
}

double fisher_exact_p(long fa, long na, long fb, long nb, int greater)
{
	long f = fa + fb, k, lo, hi;
	double pobs, p = 0;

	if (na <= 0 || nb <= 0 || fa < 0 || fb < 0 || fa > na || fb > nb)
		return NAN;
	lo = f - nb > 0 ? f - nb : 0;
	hi = f < na ? f : na;
	pobs = hyper(fa, f, na, nb);
	for (k = lo; k <= hi; k++) {
		double pk = hyper(k, f, na, nb);

		/* b fails more often: a has this many failures or fewer */
		if (greater ? k <= fa : pk <= pobs * (1 + 1e-7))
			p += pk;
	}
	return fmin(1.0, p);
}

/* indices of the non-NaN entries of @p, by ascending p; returns how many */
static size_t sort_valid(const double *p, size_t m, size_t *idx, double *adj)
{
	size_t i, j, valid = 0;

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
	return valid;
}

void holm_adjust(const double *p, size_t m, double *adj)
{
	size_t *idx = xcalloc(m ? m : 1, sizeof(size_t)), i, valid;
	double run = 0;

	valid = sort_valid(p, m, idx, adj);
	for (i = 0; i < valid; i++) {
		double v = fmin(1.0, (double)(valid - i) * p[idx[i]]);

		run = fmax(run, v);
		adj[idx[i]] = run;
	}
	free(idx);
}

void bh_adjust(const double *p, size_t m, double *adj)
{
	size_t *idx = xcalloc(m ? m : 1, sizeof(size_t)), i, valid;
	double run = 1;

	valid = sort_valid(p, m, idx, adj);
	/* step up: the adjusted p of rank i is min over j >= i of m p_(j) / j */
	for (i = valid; i > 0; i--) {
		run = fmin(run, (double)valid * p[idx[i - 1]] / (double)i);
		adj[idx[i - 1]] = run;
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
