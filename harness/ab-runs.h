/*
 * ab-runs.h - the A/B's runs (ab-runs.c): each run's directory and options, a
 * run loaded from disk or done now, and a batch of slots at once (-j, --hosts,
 * or a backend that takes several runs a job).
 */
#ifndef KPAIR_AB_RUNS_H
#define KPAIR_AB_RUNS_H

#include <jansson.h>

#include "ab-opts.h"

extern const char *const ab_side_names[2];	/* "stock", "patched" */

/* the progress line on a terminal: run N of M, side, phase, elapsed and eta */
struct progress {
	int tty;
	int done, total;
	const char *side;
	double t0, run_t0, sum_wall;
	int nwall;
	char ratio[64];
};
void ab_progress_show(struct progress *p, const char *phase);

/* the directory of run @idx of @side, or of its warm-up when @idx < 0 (caller frees) */
char *ab_run_dir(const struct ab_opts *o, int idx, int side);
/* run @idx of @side (on @host, or NULL): loaded when already on disk, else run now */
json_t *ab_do_run(const struct ab_opts *o, int idx, int side, const char *host,
		  struct progress *pg);
/* run @idx of @side has its result.json */
int ab_run_on_disk(const struct ab_opts *o, int idx, int side);
/* runs the backend takes at once (a LAVA job of several boots); 1: one a time */
int ab_backend_batch(const struct ab_opts *o);
/* the first attempts of the slots @idx[0..@n) at once, in child processes */
void ab_run_batch(const struct ab_opts *o, const int *idx, const int *side,
		  const char *const *host, int n, struct progress *pg);

#endif
