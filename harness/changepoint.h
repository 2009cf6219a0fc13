/*
 * changepoint.h - steps and drifts over a nightly history: one series (a job x target x
 * metric) of nights, each night the raw samples of that night's kernel, analysed as a whole
 * after every night (docs/nightly.md, "Change points").
 *
 *   levels    a night's level is the mean of its log values; a night's variance is the
 *             pooled within-night variance over its runs plus the between-night variance
 *             (from the median absolute successive difference of the levels, robust to
 *             the steps themselves), so noise from night to night is not taken for a step
 *   steps     binary segmentation: the split of a segment with the largest standardised
 *             difference of the means either side; its p two-sided normal, Bonferroni over
 *             the segment's splits; kept when p < alpha, and segments between two steps are
 *             at least CP_MIN_SEGMENT nights (the first night may stand alone: the history
 *             may start with the kernel before a change)
 *   drift     in a segment with no step, a least-squares line: kept when its slope's
 *             p < alpha and the line fits better than the best step (a slow drift is a
 *             drift, not a step): its size is the level now against the level at the
 *             segment's start, with a 95 % interval
 *   confirmed a step with CP_CONFIRM_NIGHTS nights after it, or with one when the night's
 *             own A/B (its baseline rerun the same night) moved the same way; a drift over
 *             CP_MIN_DRIFT_NIGHTS nights or more
 */
#ifndef KPAIR_CHANGEPOINT_H
#define KPAIR_CHANGEPOINT_H

#include <jansson.h>

#define CP_MAX 16			/* change points a series reports */
#define CP_MIN_SEGMENT 2		/* nights between two steps, at least */
#define CP_CONFIRM_NIGHTS 2		/* nights after a step that confirm it alone */
#define CP_MIN_DRIFT_NIGHTS 6		/* nights a drift is judged over, at least */
#define CP_MIN_NIGHTS 3			/* nights before anything is judged */

enum cp_kind { CP_STEP, CP_DRIFT };

struct cp_night {
	const double *v;	/* the night's raw samples (> 0) */
	int n;
};

struct cp_point {
	enum cp_kind kind;
	int night;		/* step: the first night at the new level; drift: its first night */
	int end;		/* drift: its last night (a step: the last night of its segment) */
	double ratio, lo, hi;	/* the new level over the old (drift: last over first), 95 % CI */
	double p;		/* after Bonferroni over the segment's splits (a step) */
	int after;		/* nights at the new level, this one included */
	int confirmed;
};

/*
 * The change points of @nights (@n of them, oldest first) at level @alpha, oldest first;
 * @ab_dir the sign of the change the latest night's own A/B called (+1 up, -1 down, 0 none).
 * Returns their number (at most CP_MAX).
 */
int cp_analyze(const struct cp_night *nights, int n, double alpha, int ab_dir,
	       struct cp_point *out);
/* one change point as JSON: kind, night, nights, ratio, CI, p, confirmed (@labels: by night) */
json_t *cp_json(const struct cp_point *c, const char *const *labels);

#endif
