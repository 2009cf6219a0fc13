/*
 * bisect-search.h - the search of a bisect, apart from how a step is run, so
 * that a simulation drives the very rule the real bisect uses:
 *
 *  1. the ends first: good (point 0) against bad (point n), extended until it
 *     regresses (the effect e and the spread are measured) or shows it does not;
 *  2. every step is sized to classify a point at that noise 90 % of the time:
 *     bad when it is worse than good (one-sided 95 %) and not better than bad,
 *     good when it is better than bad (the ends' own uncertainty counted) and
 *     not worse than good; both or neither: unresolved (a wrong class needs a
 *     point to land past both bounds: rarer than 1 in 1000);
 *     a range that needs more than --max-runs a side per step is refused;
 *  3. steps are good, bad or unresolved; an unresolved one gets more runs, and
 *     one still unresolved at --max-runs ends the search with its interval;
 *  4. the boundary pair found (last good, first bad) is A/B'd directly and
 *     must show the regression, else the interval is reported, not a guess.
 */
#ifndef KPAIR_BISECT_SEARCH_H
#define KPAIR_BISECT_SEARCH_H

#include "verdict.h"

#define BISECT_POWER 0.9		/* a sized step resolves at once this often */
#define BISECT_CONFIDENCE 0.99		/* of each one-sided bound of a step */

enum step_class { STEP_GOOD, STEP_BAD, STEP_UNRESOLVED };
extern const char *const step_class_names[];

enum bisect_end {
	BISECT_FOUND,		/* first_bad, and the retest of its boundary confirms it */
	BISECT_NO_REGRESSION,	/* good..bad does not regress the metric */
	BISECT_UNRESOLVED,	/* a step or the retest stayed open at max_runs: lo+1..hi */
	BISECT_INFEASIBLE,	/* the noise needs more runs a step than max_runs: refused */
	BISECT_FAILED,		/* a step's A/B failed */
};
extern const char *const bisect_end_names[];

struct bisect_search {
	/* in */
	int n;			/* points 0 (good) .. n (bad) */
	int higher;		/* the metric is higher-is-better */
	double threshold;	/* no-change band (fraction) */
	int runs, max_runs;	/* runs a side of the first A/B (and the least of any); the most */
	int verbose;		/* say what it decides on stdout */
	/*
	 * The A/B of point @i (stock) against point @j (patched), with at least @runs a
	 * side (more runs extend the same A/B); @c gets the metric's comparison, p_adj
	 * its own p. 0, or -1 when the A/B failed.
	 */
	int (*measure)(void *ctx, int i, int j, int runs, struct comparison *c);
	void *ctx;
	/* out */
	enum bisect_end end;
	double effect, sd;	/* good -> bad change (log ratio, worse direction) and spread */
	double effect_se;	/* the change's standard error */
	int step_runs;		/* runs a side each step was sized to */
	int first_bad;		/* BISECT_FOUND: the first bad point */
	int lo, hi;		/* the first bad point lies in lo+1..hi */
	int measures;		/* A/Bs run (extensions not counted) */
	char why[512];
};

/* run the search; s->end says how it ended, s->why in words */
void bisect_search_run(struct bisect_search *s);

/*
 * One step's class from its comparison against good: bad when it is worse than
 * good and not better than @effect (whose standard error is @effect_se), good
 * the other way round, else unresolved; *@between (may be NULL): apart from both.
 */
enum step_class bisect_classify(const struct comparison *c, double effect, double effect_se,
				int higher, int *between);

/* runs a side at which a step classifies at spread @sd and effect @effect; -1 out of reach */
int bisect_step_runs(double sd, double effect);

#endif
