/*
 * ab.h - the A/B engine: stock and patched runs interleaved in randomized
 * ABBA blocks (seed recorded), every run a fresh boot on a fresh fs, failed
 * runs recorded and retried, optional adaptive stopping on the ratio CI,
 * then the comparison (compare.h) and the report (html.h). The plan is kept
 * in DIR/ab.json so `kpair resume DIR` continues where a run stopped.
 */
#ifndef KPAIR_AB_H
#define KPAIR_AB_H

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
};

void ab_opts_init(struct ab_opts *o);
void ab_opts_release(struct ab_opts *o);

/* split "URI1,URI2,..." into o->hosts; -1 with an error naming the bad entry */
int ab_set_hosts(struct ab_opts *o, const char *list);

/* run (or continue) an A/B; returns the exit code kpair gives */
int ab_run(struct ab_opts *o);
/* continue an interrupted A/B from DIR/ab.json */
int ab_resume(const char *dir);
/* continue the A/B of DIR to @runs a side (more than planned: the same order, extended) */
int ab_extend(const char *dir, int runs);
/* rebuild comparison.json, the table and report.html of DIR from its runs */
int ab_report(const char *dir);

#endif
