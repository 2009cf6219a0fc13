/*
 * stats.h - the statistics of a comparison, on GSL: summaries, the ratio of
 * medians with a bootstrap CI, Mann-Whitney U (exact for small samples, ties
 * handled), Welch's t-test, Holm's correction and the verdict per metric.
 */
#ifndef KPAIR_STATS_H
#define KPAIR_STATS_H

#include <stddef.h>
#include <stdint.h>

#define STATS_BOOTSTRAP 10000		/* resamples for the ratio CI */
#define STATS_SEED 20081008		/* fixed: the same data give the same CI */
#define STATS_ALPHA 0.05
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
/* ratio median(b) / median(a) and its percentile bootstrap 95 % CI */
int ratio_ci(const double *a, size_t na, const double *b, size_t nb, double *ratio,
	     double *lo, double *hi);
/* Holm-Bonferroni adjusted p-values, in place order; NaN entries are left out */
void holm_adjust(const double *p, size_t m, double *adj);

/*
 * Robust outliers (Iglewicz and Hoaglin): values whose modified z-score
 * 0.6745 |x - median| / MAD exceeds 3.5. Their indices go to @idx (room for
 * n); returns how many. Flagged, never dropped: the statistics keep them.
 */
size_t mad_outliers(const double *x, size_t n, size_t *idx);

enum verdict { V_IMPROVED, V_REGRESSED, V_NO_CHANGE, V_INCONCLUSIVE };
extern const char *const verdict_names[];

struct comparison {
	struct summary a, b;
	double ratio, ratio_lo, ratio_hi;
	double p_mw, p_welch, p_adj;
	int mw_exact;
	enum verdict verdict;
	char why[200];
};

/* everything but the verdict (which needs p_adj across metrics) */
void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     struct comparison *c);
/*
 * The verdict of one metric, with c->p_adj already set: improved/regressed
 * need p_adj < alpha and a ratio CI that excludes 1; no-change needs the CI
 * inside 1 +/- @threshold; otherwise inconclusive, with the reason in c->why.
 */
void decide(struct comparison *c, int higher_is_better, double threshold);

enum claim_result { CLAIM_REPRODUCED, CLAIM_NOT_REPRODUCED, CLAIM_INCONCLUSIVE };
extern const char *const claim_names[];
/*
 * Is a published ratio @pub (patched/stock) supported by the measured CI?
 * Reproduced: the CI is on the published side of 1 and reaches at least
 * (1 - @tol) of the published effect; not reproduced: the CI lies wholly on
 * the other side of that bound; else inconclusive.
 */
enum claim_result claim_check(double pub, double lo, double hi, double tol);

#endif
