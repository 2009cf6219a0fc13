/*
 * bisect.h - the first patch of a quilt series (or the first commit of a git
 * range good..bad, on bad's first-parent line) whose A/B against the base is
 * `regressed` on one metric. Kernels for each prefix of the series
 * come from kernel_build (cached by key: a prefix built once is never built
 * again), each step's A/B lives in DIR/step-KK/ (the boundary retest in
 * DIR/step-II-KK/) and is replayed rather than rerun when it is already on
 * disk; the search and its rule are bisect-search.h.
 */
#ifndef KPAIR_BISECT_H
#define KPAIR_BISECT_H

#include "ab.h"

struct bisect_opts {
	const char *job_path;
	const char *source;		/* linux-source-6.1 or a tree */
	const char *series;		/* quilt series file */
	const char *good, *bad;		/* or: git revisions of the source tree */
	const char *config;		/* whole .config for git builds (NULL: the fragment) */
	const char *metric;
	const char *fragment;		/* NULL: the target's */
	const char *target;		/* NULL: the job's */
	char *sets[AB_MAX_SETS];	/* --set for both sides (borrowed) */
	int nset;
	int runs, max_runs;		/* a side: the first A/B's (and the least of any step's); the most */
	uint64_t seed;
	double threshold;
	const char *out_dir;		/* NULL: results/bisect-<job>-<metric>-<series dir> */
};

#define BISECT_DEFAULT_MAX_RUNS 40	/* runs a side, the most any step gets */

/*
 * Returns 0 when a first bad patch (commit) was found, 1 when the whole series does
 * not regress the metric, 2 on bad input, 3 when a build or the runs failed, 4 when
 * the search ended unresolved or was refused at this noise (bisect.json has the interval).
 */
int bisect_run(const struct bisect_opts *o);

#endif
