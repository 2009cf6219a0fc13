/* bisect-search.c - the ends, the sized steps, unresolved steps and the boundary retest */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bisect-search.h"

const char *const step_class_names[] = { "good", "bad", "unresolved" };
const char *const bisect_end_names[] = { "found", "no-regression", "unresolved", "infeasible",
					 "failed" };

/* the change and its interval on the test's scale, turned so that worse is positive */
static int worse_interval(const struct comparison *c, int higher, double *est, double *lo,
			  double *hi)
{
	double e, l, h;

	if (c->scale == SCALE_RATIO) {
		e = log(c->ratio);
		l = log(c->ratio_lo);
		h = log(c->ratio_hi);
	} else {
		e = c->diff;
		l = c->diff_lo;
		h = c->diff_hi;
	}
	if (isnan(e) || isnan(l) || isnan(h))
		return -1;
	*est = higher ? -e : e;
	*lo = higher ? -h : l;
	*hi = higher ? -l : h;
	return 0;
}

/* the half-width of a one-sided BISECT_CONFIDENCE bound, from the 95 % interval [lo, hi] */
static double se_of(double lo, double hi, double df)
{
	double q95 = gsl_cdf_tdist_Qinv((1 - STATS_CONFIDENCE) / 2, df);

	return q95 > 0 ? (hi - lo) / 2 / q95 : 0;
}

enum step_class bisect_classify(const struct comparison *c, double effect, double effect_se,
				int higher, int *between)
{
	double e, lo, hi, se, q;
	int above_good, below_bad;

	if (worse_interval(c, higher, &e, &lo, &hi) < 0 || isnan(c->df))
		return STEP_UNRESOLVED;
	se = se_of(lo, hi, c->df);
	q = gsl_cdf_tdist_Qinv(1 - BISECT_CONFIDENCE, c->df);
	/* worse than good (point 0: no change), and better than bad (the ends' change) */
	above_good = e - q * se > 0;
	below_bad = effect - e - q * sqrt(se * se + effect_se * effect_se) > 0;
	if (between)
		*between = above_good && below_bad;
	if (above_good && !below_bad)
		return STEP_BAD;
	if (below_bad && !above_good)
		return STEP_GOOD;
	return STEP_UNRESOLVED;	/* too few runs to tell, or part of the change (both) */
}

int bisect_step_runs(double sd, double effect)
{
	/* a good point must sit below the bad end, whose own estimate is as uncertain */
	return runs_for_interval(sd * sqrt(2.0), effect, 2 * BISECT_CONFIDENCE - 1, BISECT_POWER);
}

static int at_most(int a, int b)
{
	return a < b ? a : b;
}

/* the ends: does good..bad regress, by how much, at what spread; -1 when it ended the search */
static int measure_ends(struct bisect_search *s)
{
	struct comparison c;
	double e, lo, hi, band = log1p(s->threshold);
	int runs = s->runs;

	for (;;) {
		if (s->measure(s->ctx, 0, s->n, runs, &c) < 0) {
			s->end = BISECT_FAILED;
			snprintf(s->why, sizeof(s->why), "the A/B of good against bad failed");
			return -1;
		}
		if (worse_interval(&c, s->higher, &e, &lo, &hi) < 0) {
			s->end = BISECT_UNRESOLVED;
			snprintf(s->why, sizeof(s->why), "good against bad has no interval (%s)", c.why);
			return -1;
		}
		if (c.p_adj < STATS_ALPHA && lo > 0) {
			s->effect = e;
			s->effect_se = se_of(lo, hi, c.df);
			s->sd = c.sd;
			return 0;
		}
		/* no regression past the threshold, or an improvement */
		if (hi < (c.scale == SCALE_RATIO ? band : 0) || c.verdict == V_NO_CHANGE ||
		    c.verdict == V_IMPROVED || c.verdict == V_IMPROVED_SMALL) {
			s->end = BISECT_NO_REGRESSION;
			snprintf(s->why, sizeof(s->why), "good against bad: %s (%s)",
				 verdict_names[c.verdict], c.why);
			return -1;
		}
		if (runs >= s->max_runs) {
			s->end = BISECT_UNRESOLVED;
			s->lo = 0;
			s->hi = s->n;
			snprintf(s->why, sizeof(s->why), "good against bad is still inconclusive at %d "
				 "runs a side (%s)", runs, c.why);
			return -1;
		}
		runs = at_most(c.runs_to_decide > runs ? c.runs_to_decide : runs + s->runs,
			       s->max_runs);
		if (s->verbose)
			printf("bisect: good against bad inconclusive: extending to %d runs a side\n", runs);
	}
}

/* the ends again at @runs a side: the change a step is held against, measured as closely */
static int remeasure_ends(struct bisect_search *s, int runs)
{
	struct comparison c;
	double e, lo, hi;

	if (s->measure(s->ctx, 0, s->n, runs, &c) < 0 ||
	    worse_interval(&c, s->higher, &e, &lo, &hi) < 0)
		return -1;
	s->effect = e;
	s->effect_se = se_of(lo, hi, c.df);
	return 0;
}

/* one point (or the boundary pair) classified, with more runs while it is unresolved */
static enum step_class classify_extending(struct bisect_search *s, int i, int j, int *failed)
{
	struct comparison c;
	enum step_class k;
	int runs = s->step_runs, between;

	s->measures++;
	for (;;) {
		if (s->measure(s->ctx, i, j, runs, &c) < 0) {
			*failed = 1;
			return STEP_UNRESOLVED;
		}
		k = bisect_classify(&c, s->effect, s->effect_se, s->higher, &between);
		if (k != STEP_UNRESOLVED || runs >= s->max_runs)
			return k;
		runs = at_most(runs + s->step_runs, s->max_runs);
		/*
		 * apart from good and from bad at once: the ends' change may be off by
		 * chance, so it is measured with as many runs as the step gets
		 */
		if (between && remeasure_ends(s, runs) < 0) {
			*failed = 1;
			return STEP_UNRESOLVED;
		}
		if (s->verbose)
			printf("bisect: %d against %d unresolved (not yet apart from good or from bad): "
			       "extending to %d runs a side\n", i, j, runs);
	}
}

/*
 * Steps sized from the ends' effect and spread. The ends' own A/B is extended
 * to that size first (up to max_runs), so the plan rests on as many runs as a
 * step gets, not on the first few: from 5 runs a side a spread is known to
 * within a factor of two.
 */
static int size_steps(struct bisect_search *s)
{
	int sized = bisect_step_runs(s->sd, s->effect), steps = 0, k, have = s->runs;
	struct comparison c;
	double e, lo, hi;

	while (sized > have && have < s->max_runs) {
		have = at_most(sized, s->max_runs);
		if (s->verbose)
			printf("bisect: good against bad: %d runs a side to size the steps\n", have);
		if (s->measure(s->ctx, 0, s->n, have, &c) < 0 ||
		    worse_interval(&c, s->higher, &e, &lo, &hi) < 0 || !(e > 0)) {
			s->end = BISECT_UNRESOLVED;
			snprintf(s->why, sizeof(s->why), "good against bad no longer regresses at %d runs "
				 "a side (%s)", have, c.why);
			return -1;
		}
		s->effect = e;
		s->effect_se = se_of(lo, hi, c.df);
		s->sd = c.sd;
		sized = bisect_step_runs(s->sd, s->effect);
		if (sized < 0)
			break;
	}

	for (k = s->n; k > 1; k = (k + 1) / 2)
		steps++;
	if (sized < 0 || sized > s->max_runs) {
		s->end = BISECT_INFEASIBLE;
		s->lo = 0;
		s->hi = s->n;
		snprintf(s->why, sizeof(s->why), "a %.1f %% regression at a spread of %.1f %% needs "
			 "%s%d runs a side at every step to tell a point from both ends "
			 "(%d steps and the retest: about %d boots); --max-runs is %d: raise it, or "
			 "measure in a quieter mode (docs/measurement-modes.md)", expm1(s->effect) * 100,
			 s->sd * 100, sized < 0 ? "more than " : "", sized < 0 ? VERDICT_MAX_RUNS : sized,
			 steps, 2 * (steps + 1) * (sized < 0 ? VERDICT_MAX_RUNS : sized), s->max_runs);
		return -1;
	}
	s->step_runs = sized > s->runs ? sized : s->runs;
	if (s->verbose)
		printf("bisect: good -> bad %+.1f %% at a spread of %.2f %%: %d runs a side a step\n",
		       expm1(s->effect) * 100 * (s->higher ? -1 : 1), s->sd * 100, s->step_runs);
	return 0;
}

void bisect_search_run(struct bisect_search *s)
{
	enum step_class k;
	int failed = 0, mid;

	s->end = BISECT_FOUND;
	s->first_bad = -1;
	s->lo = 0;
	s->hi = s->n;
	s->measures = 1;
	s->why[0] = '\0';
	if (measure_ends(s) < 0 || size_steps(s) < 0)
		return;
	while (s->hi - s->lo > 1) {
		mid = s->lo + (s->hi - s->lo) / 2;
		k = classify_extending(s, 0, mid, &failed);
		if (failed) {
			s->end = BISECT_FAILED;
			snprintf(s->why, sizeof(s->why), "the A/B of point %d failed", mid);
			return;
		}
		if (k == STEP_UNRESOLVED) {
			s->end = BISECT_UNRESOLVED;
			snprintf(s->why, sizeof(s->why), "point %d stayed unresolved at %d runs a side: the "
				 "first bad one is in %d..%d", mid, s->max_runs, s->lo + 1, s->hi);
			return;
		}
		if (k == STEP_BAD)
			s->hi = mid;
		else
			s->lo = mid;
	}
	/* the boundary pair directly (the first point's step already was: good is point 0) */
	if (s->lo > 0) {
		k = classify_extending(s, s->lo, s->hi, &failed);
		if (failed || k != STEP_BAD) {
			s->end = failed ? BISECT_FAILED : BISECT_UNRESOLVED;
			snprintf(s->why, sizeof(s->why), "the retest of %d against %d %s: the first bad "
				 "point is in %d..%d, or the regression comes in more than one step",
				 s->lo, s->hi, failed ? "failed" : k == STEP_GOOD ?
				 "does not show the regression" : "stayed unresolved", s->lo + 1, s->hi);
			return;
		}
	}
	s->first_bad = s->hi;
	snprintf(s->why, sizeof(s->why), "point %d, confirmed against point %d", s->hi, s->lo);
}
