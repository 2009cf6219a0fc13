/*
 * verdict.h - kpair's rule from the runs of two sides to a verdict on one
 * metric (docs/ab.md, "The verdict rule"):
 *
 *   test      p = min(1, 2 min(p_MW, p_Welch)): the exact Mann-Whitney p (no
 *             assumption, but never below 2 / C(2n, n)) and Welch's t on log
 *             values (no floor, for runs that repeat almost exactly), doubled:
 *             Bonferroni over the two, so the level holds if either does
 *   interval  Welch's 95 % t-interval on log values: the ratio of the
 *             geometric means; on raw values (a difference) when a run
 *             measured 0 or less
 *   verdict   improved / regressed: p_adjusted < alpha and the interval
 *             excludes 1 (0), and reaches outside 1 +/- threshold; the same
 *             with the interval inside the band: improved-small /
 *             regressed-small (a real change smaller than the threshold, not a
 *             failure); no-change: interval inside the band; else inconclusive,
 *             with the runs a side that would decide it
 *
 * p_adjusted is set by the family rule (compare.c): the primary metric alone,
 * Benjamini-Hochberg over the others.
 */
#ifndef KPAIR_VERDICT_H
#define KPAIR_VERDICT_H

#include <stddef.h>

#include "stats.h"

#define VERDICT_POWER 0.8		/* of the runs a side kpair recommends */
#define VERDICT_MAX_RUNS 1000		/* runs a side past which kpair says "out of reach" */
#define VERDICT_MIN_RUNS 3		/* the fewest kpair recommends: Welch needs a spread to judge */

enum verdict {
	V_IMPROVED, V_REGRESSED, V_NO_CHANGE, V_INCONCLUSIVE, V_IMPROVED_SMALL, V_REGRESSED_SMALL,
	V_NVERDICT
};
extern const char *const verdict_names[V_NVERDICT];
/* the verdict called @name, or -1 */
int verdict_find(const char *name);

enum scale { SCALE_RATIO, SCALE_DIFFERENCE };
extern const char *const scale_names[];

struct comparison {
	struct summary a, b;
	enum scale scale;
	double ratio, ratio_lo, ratio_hi;	/* geometric means and interval; NaN on SCALE_DIFFERENCE */
	double ratio_medians;			/* median b / median a; NaN when median a is 0 */
	double diff, diff_lo, diff_hi;		/* mean b - mean a and interval; NaN on SCALE_RATIO */
	double sd;				/* pooled SD on the scale (of log values: ~ the CV) */
	double df;				/* Welch-Satterthwaite degrees of freedom of the interval */
	double p_mw, p_welch, p, p_adj;		/* p: the metric's test; p_adj after the family rule */
	int mw_exact;
	int runs_to_decide;			/* inconclusive: runs a side that would decide; -1 */
	enum verdict verdict;
	char why[256];
};

/* everything but the verdict (which needs p_adj across metrics) */
void compare_samples(const double *a, size_t na, const double *b, size_t nb,
		     struct comparison *c);
/* the metric's test p from its two tests: min(1, 2 min(p_mw, p_welch)); NaN ignored */
double combined_p(double p_mw, double p_welch);
/*
 * The verdict of one metric, with c->p_adj set (see the top of this file);
 * @alone_level is the p a change in this metric alone must reach in its family
 * (alpha for a primary metric, alpha / m among m secondaries under
 * Benjamini-Hochberg): it sizes the runs_to_decide of an inconclusive metric.
 */
void decide(struct comparison *c, int higher_is_better, double threshold, double alone_level);

/* a change (regressed, improved, or either small) */
int verdict_changed(enum verdict v);

/*
 * Runs a side at which this rule calls a change of @effect (log ratio, or
 * difference on the raw scale) at the p @level with probability @power, when
 * the runs spread by @sd on that scale (Welch's half of the test; the rank half
 * only adds power); -1 past VERDICT_MAX_RUNS or when it cannot be known.
 */
int runs_for_change(double sd, double effect, double level, double power);
/*
 * Runs a side at which the interval of a change of @effect lies inside
 * +/- @band with probability @power (a no-change verdict); -1 as above.
 */
int runs_for_no_change(double sd, double effect, double band, double power);
/*
 * Runs a side at which a @conf interval of the change excludes a value @distance
 * away from the true change with probability @power; -1 as above.
 */
int runs_for_interval(double sd, double distance, double conf, double power);
/* smallest n a side at which the rank test alone, doubled, reaches @level */
int runs_for_rank_level(double level);

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
