/*
 * changepoint.c - steps and drifts over a nightly history (the rule: changepoint.h).
 * Plain arithmetic on the nights' levels; GSL for the normal tail and the medians.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "changepoint.h"
#include "util.h"

#define CP_MIN_REL_SD 1e-4	/* a level's sd, at least: 0.01 %, for runs that repeat exactly */

struct series {
	const double *x;	/* the levels */
	double *sum, *sum2;	/* their prefix sums: sum[i] of x[0..i-1] */
	int n;
	double s2;		/* a level's variance */
	int df;			/* what s2's between-night part rests on (0: none) */
	int ab_dir;
	struct cp_point *out;
	int nout;
};

/*
 * The variance of a night's level: within the nights (pooled), plus between them: the
 * successive differences of the levels have twice a level's variance when nothing moved;
 * their mean square without the largest tenth (at least one: a step) corrected for that
 * trimming of a normal sample. *df is what the between-night part rests on (0: none).
 */
static double level_variance(const struct cp_night *nights, const double *x, int n, int *df_out)
{
	double ss = 0, inv = 0, within, tau2 = 0, *d;
	int df = 0, t, i, m = n - 1, k;

	for (t = 0; t < n; t++) {
		for (i = 0; i < nights[t].n; i++) {
			double e = log(nights[t].v[i]) - x[t];

			ss += e * e;
		}
		df += nights[t].n - 1;
		inv += 1.0 / nights[t].n;
	}
	within = df > 0 ? ss / df * (inv / n) : 0;
	*df_out = 0;
	k = m / 10 > 1 ? m / 10 : 1;
	if (m - k >= 2) {
		double f = (double)k / m, q = gsl_cdf_ugaussian_Pinv(1 - f / 2), sq = 0, keep;

		d = xcalloc(m, sizeof(double));
		for (t = 0; t < m; t++)
			d[t] = fabs(x[t + 1] - x[t]);
		gsl_sort(d, 1, m);
		for (i = 0; i < m - k; i++)
			sq += d[i] * d[i];
		keep = (1 - f - 2 * q * exp(-q * q / 2) / sqrt(2 * M_PI)) / (1 - f);
		tau2 = fmax(0, sq / (m - k) / keep / 2 - within);
		if (tau2 > 0)
			*df_out = m - k;
		free(d);
	}
	return fmax(within + tau2, CP_MIN_REL_SD * CP_MIN_REL_SD);
}

/* two-sided p of @z: normal, or Student's t on @df degrees when the variance rests on few */
static double two_sided(double z, int df)
{
	return 2 * (df > 0 ? gsl_cdf_tdist_Q(fabs(z), df) : gsl_cdf_ugaussian_Q(fabs(z)));
}

static double mean(const struct series *s, int lo, int hi)
{
	return (s->sum[hi] - s->sum[lo]) / (hi - lo);
}

static double rss_mean(const struct series *s, int lo, int hi)
{
	double d = s->sum[hi] - s->sum[lo];

	return fmax(0, s->sum2[hi] - s->sum2[lo] - d * d / (hi - lo));
}

static void add(struct series *s, const struct cp_point *c)
{
	if (s->nout < CP_MAX)
		s->out[s->nout++] = *c;
}

/* one segment [lo, hi): a drift, or its best step and the segments either side */
static void segment(struct series *s, int lo, int hi, double alpha)
{
	const double *x = s->x;
	int len = hi - lo, k, best = -1, splits = 0;
	double bz = 0, brss = INFINITY;

	if (len < CP_MIN_NIGHTS)
		return;
	for (k = lo + (lo ? CP_MIN_SEGMENT : 1); k < hi; k++) {	/* the first night may stand alone */
		int nl = k - lo, nr = hi - k;
		double z, rss;

		if (nr < CP_MIN_SEGMENT && hi != s->n)	/* only the newest nights stand alone */
			continue;
		splits++;
		z = (mean(s, k, hi) - mean(s, lo, k)) / sqrt(s->s2 * (1.0 / nl + 1.0 / nr));
		rss = rss_mean(s, lo, k) + rss_mean(s, k, hi);
		if (fabs(z) > fabs(bz)) {
			bz = z;
			best = k;
			brss = rss;
		}
	}
	if (len >= CP_MIN_DRIFT_NIGHTS) {	/* the line through the segment */
		double tm = (lo + hi - 1) / 2.0, xm = mean(s, lo, hi), sxx = 0, sxy = 0, b, se, rss = 0;
		int i;

		for (i = lo; i < hi; i++) {
			sxx += (i - tm) * (i - tm);
			sxy += (i - tm) * (x[i] - xm);
		}
		b = sxy / sxx;
		se = sqrt(s->s2 / sxx);
		for (i = lo; i < hi; i++) {
			double e = x[i] - (xm + b * (i - tm));

			rss += e * e;
		}
		if (two_sided(b / se, s->df) < alpha && rss < brss) {
			struct cp_point c = { .kind = CP_DRIFT, .night = lo, .end = hi - 1,
					      .ratio = exp(b * (len - 1)),
					      .lo = exp((b - 1.959964 * se) * (len - 1)),
					      .hi = exp((b + 1.959964 * se) * (len - 1)),
					      .p = two_sided(b / se, s->df),
					      .after = len, .confirmed = 1 };

			add(s, &c);
			return;
		}
	}
	if (best < 0 || fmin(1, splits * two_sided(bz, s->df)) >= alpha)
		return;
	{
		struct cp_point c = { .kind = CP_STEP, .night = best,
				      .p = fmin(1, splits * two_sided(bz, s->df)) };

		add(s, &c);
	}
	segment(s, lo, best, alpha);
	segment(s, best, hi, alpha);
}

static int by_night(const void *a, const void *b)
{
	const struct cp_point *x = a, *y = b;

	return x->night - y->night;
}

/* each step's size against the segments either side of it, once all are known */
static void sizes(struct series *s)
{
	int i;

	qsort(s->out, s->nout, sizeof(*s->out), by_night);
	for (i = 0; i < s->nout; i++) {
		struct cp_point *c = &s->out[i];
		int lo = i ? s->out[i - 1].night : 0, hi = i + 1 < s->nout ? s->out[i + 1].night : s->n;
		double d, se;

		if (c->kind != CP_STEP)
			continue;
		if (i && s->out[i - 1].kind == CP_DRIFT)
			lo = s->out[i - 1].end + 1;
		d = mean(s, c->night, hi) - mean(s, lo, c->night);
		se = sqrt(s->s2 * (1.0 / (c->night - lo) + 1.0 / (hi - c->night)));
		c->end = hi - 1;
		c->ratio = exp(d);
		c->lo = exp(d - 1.959964 * se);
		c->hi = exp(d + 1.959964 * se);
		c->after = s->n - c->night;
		c->confirmed = c->after >= CP_CONFIRM_NIGHTS ||
			       (c->after == 1 && s->ab_dir && (d > 0 ? 1 : -1) == s->ab_dir);
	}
}

int cp_analyze(const struct cp_night *nights, int n, double alpha, int ab_dir,
	       struct cp_point *out)
{
	double *x;
	struct series s = { .n = n, .ab_dir = ab_dir, .out = out };
	int t, i;

	if (n < CP_MIN_NIGHTS)
		return 0;
	x = xcalloc(n, sizeof(double));
	for (t = 0; t < n; t++) {
		for (i = 0; i < nights[t].n; i++)
			x[t] += log(nights[t].v[i]);
		x[t] /= nights[t].n;
	}
	s.s2 = level_variance(nights, x, n, &s.df);
	for (t = n - 1; t >= 0; t--)	/* centred: the prefix sums keep their digits */
		x[t] -= x[0];
	s.x = x;
	s.sum = xcalloc(n + 1, sizeof(double));
	s.sum2 = xcalloc(n + 1, sizeof(double));
	for (t = 0; t < n; t++) {
		s.sum[t + 1] = s.sum[t] + x[t];
		s.sum2[t + 1] = s.sum2[t] + x[t] * x[t];
	}
	segment(&s, 0, n, alpha);
	sizes(&s);
	free(s.sum);
	free(s.sum2);
	free(x);
	return s.nout;
}

json_t *cp_json(const struct cp_point *c, const char *const *labels)
{
	return json_pack("{s:s, s:i, s:s?, s:i, s:s?, s:f, s:f, s:f, s:f, s:f, s:i, s:b}",
			 "kind", c->kind == CP_STEP ? "step" : "drift", "night", c->night,
			 "night_label", labels ? labels[c->night] : NULL, "end", c->end,
			 "end_label", labels ? labels[c->end] : NULL,
			 "ratio", c->ratio, "change_pct", 100 * (c->ratio - 1),
			 "ci_low", c->lo, "ci_high", c->hi, "p", c->p, "nights_after", c->after,
			 "confirmed", c->confirmed);
}
