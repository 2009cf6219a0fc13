/*
 * ab-opts.h - what an A/B is asked to do (struct ab_opts), shared by the engine
 * (ab.c), its plan (ab-plan.c) and its end (ab-finish.c)
 */
#ifndef KPAIR_AB_OPTS_H
#define KPAIR_AB_OPTS_H

#include <stdint.h>

#define AB_MAX_SETS 32
#define AB_MAX_JOBS 4		/* runs at once with -j */
#define AB_MAX_HOSTS 8		/* libvirt hosts with --hosts */
#define AB_MAX_BATCH (2 * AB_MAX_HOSTS)	/* runs started together */

struct ab_side {
	char *kernel;
	char *sets[AB_MAX_SETS];	/* --set overrides of this side */
	int nset;
};

struct ab_opts {
	char *job_path;
	struct ab_side side[2];		/* 0 stock, 1 patched */
	char *sets[AB_MAX_SETS];	/* --set for both sides */
	int nset;
	int runs;			/* per side */
	int runs_given;			/* -n on the command line (else the default) */
	char *metric;			/* --metric: the primary metric (NULL: job.metric, the claim's) */
	double until_ci;		/* stop when the CI is narrower than this % (0: off) */
	int max_runs;			/* per side, with until_ci */
	int retries;			/* per failed run */
	int warmup;			/* boots before the first measured one, not compared */
	uint64_t seed;			/* run order */
	double threshold;		/* no-change band, fraction */
	char *out_dir;
	int calibrate;			/* A/A: both sides the same */
	int jobs;			/* runs at once (-j); 1 for measurement */
	char *backend, *uri;		/* boot backend (NULL: qemu) and libvirt URI */
	/*
	 * --hosts: the runs fan out over these libvirt hosts, one guest per host
	 * at a time, files staged as volumes. A pair (two consecutive slots, one
	 * stock and one patched) stays on one host unless mix_hosts.
	 */
	char *hosts[AB_MAX_HOSTS];
	int nhosts;
	int mix_hosts;
	int profile;			/* --profile: one profiled run a side after the runs */
};

#endif
