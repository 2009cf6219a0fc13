/*
 * stats.h - the statistics of a comparison, on GSL: summaries, Mann-Whitney U
 * (exact for small samples, ties handled), Welch's t-test with its interval on
 * log values (a ratio) or raw values (a difference), Fisher's exact test,
 * Holm's and Benjamini-Hochberg's adjustments. The rule that turns them into
 * a verdict is in verdict.h.
 */
#ifndef KPAIR_STATS_H
#define KPAIR_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_ALPHA 0.05
#define STATS_CONFIDENCE 0.95		/* of every interval kpair prints */
#define STATS_EXACT_MAX 40		/* n_a + n_b up to which Mann-Whitney is exact */

struct summary {
	size_t n;
	double mean, median, stddev, cv;	/* cv = stddev / mean */
	double min, max, p50, p90, p99;
};

/* @x is not modified; NaN fields when n is 0 (stddev, cv also when n is 1) */
void summarize(const double *x, size_t n, struct summary *s);

/* two-sided Mann-Whitney U p-value of @a vs @b; NaN when either is empty */
double mann_whitney_p(const double *a, size_t na, const double *b, size_t nb, int *exact);
/* smallest two-sided p an exact rank test can reach with these sample sizes */
double mann_whitney_min_p(size_t na, size_t nb);
/* Welch's two-sided t-test p-value; NaN with fewer than 2 values a side */
double welch_p(const double *a, size_t na, const double *b, size_t nb);

/*
 * Welch's t on log values (@logscale: every value > 0) or on raw values: the
 * estimate is exp(mean log b - mean log a), the ratio of the geometric means,
 * or mean b - mean a, with its two-sided p and a @conf interval from the
 * t-distribution with Welch-Satterthwaite degrees of freedom. Both sides with
 * no spread at all: p is 0 (or 1 when they agree) and the interval a point.
 * Returns -1 (all NaN) with fewer than 2 values a side.
 */
struct welch {
	double est, lo, hi;	/* ratio or difference, and its interval */
	double p, df;
	double sd;		/* pooled standard deviation on the test's scale */
	int logscale;
};
int welch_test(const double *a, size_t na, const double *b, size_t nb, int logscale,
	       double conf, struct welch *w);

/*
 * Fisher's exact test on a 2x2 table: failures @fa of @na runs on side a, @fb
 * of @nb on side b. @greater: one-sided, b fails more often; else two-sided.
 */
double fisher_exact_p(long fa, long na, long fb, long nb, int greater);

/* Holm-Bonferroni adjusted p-values, in place order; NaN entries are left out */
void holm_adjust(const double *p, size_t m, double *adj);
/* Benjamini-Hochberg adjusted p-values (false discovery rate), as holm_adjust */
void bh_adjust(const double *p, size_t m, double *adj);

/*
 * Robust outliers (Iglewicz and Hoaglin): values whose modified z-score
 * 0.6745 |x - median| / MAD exceeds 3.5. Their indices go to @idx (room for
 * n); returns how many. Flagged, never dropped: the statistics keep them.
 */
size_t mad_outliers(const double *x, size_t n, size_t *idx);

#endif
