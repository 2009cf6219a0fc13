/*
 * run.h - one run, the pipeline end to end: job and target (config), kernel,
 * initramfs and scratch disk (image), guest (boot), records (channel,
 * samples), result.json (result.c). Used by `kpair run` and by the A/B engine.
 */
#ifndef KPAIR_RUN_H
#define KPAIR_RUN_H

#include "backends/vm.h"

struct run_opts {
	const char *job_path;
	const char *kernel;		/* id in the store, or a directory */
	char *const *sets;		/* "section.key=value" overrides */
	int nset;
	const char *out_dir;		/* results/<run-id>; NULL: made up */
	int keep_disk;			/* leave scratch.img in the run directory */
	const char *initramfs;		/* "gzip" or "plain"; NULL: the target's choice */
	int quiet;			/* no summary on stdout */
	int brief;			/* run -q: a failed run's status line only */
	const char *backend;		/* "qemu" (NULL) or "libvirt" */
	const char *dest;		/* where the run goes (--uri, a --hosts entry); NULL: default */
	int remote;			/* @dest does not share our files (--hosts) */
	const char *earlier;		/* this run's attempt an earlier kpair left (ab resume) */
	const char *profile;		/* a profiled run: the profiler's name; NULL: none */
	/* optional: told "prepare", "boot", "workload", "poweroff" as the run goes */
	void (*on_phase)(void *user, const char *phase);
	void *phase_user;
};

/*
 * Do one run. Returns the run's status (RUN_OK ...); a job or kernel that
 * cannot be used at all returns -1 with an error printed (exit code 2).
 */
int run_one(const struct run_opts *o);

/*
 * @n runs, @o[0..@n) (one backend), handed to the backend at once when it takes several
 * (backend.run_many: a LAVA job of several boots); each one's status in @status[i] as
 * run_one's, or RUN_NOT_STARTED: the backend never booted it, and it left nothing.
 */
#define RUN_NOT_STARTED (-2)
int run_many(const struct run_opts *o, int n, int *status);

#endif
