/*
 * run.h - one run, the pipeline end to end: job and target (config), kernel,
 * initramfs and scratch disk (image), guest (boot), records (channel,
 * samples), result.json (report). Used by `kpair run` and by the A/B engine.
 */
#ifndef KPAIR_RUN_H
#define KPAIR_RUN_H

#include "boot.h"

struct run_opts {
	const char *job_path;
	const char *kernel;		/* id in the store, or a directory */
	char *const *sets;		/* "section.key=value" overrides */
	int nset;
	const char *out_dir;		/* results/<run-id>; NULL: made up */
	int keep_disk;			/* leave scratch.img in the run directory */
	const char *initramfs;		/* "gzip" or "plain"; NULL: the target's choice */
	int quiet;			/* no summary on stdout */
	const char *backend;		/* "qemu" (NULL) or "libvirt" */
	const char *uri;		/* libvirt connection URI (NULL: qemu:///system) */
	int stage;			/* libvirt: the host does not share our files (--hosts) */
	const char *resume_from;	/* this run's attempt an earlier kpair left (ab resume) */
	/* optional: told "prepare", "boot", "workload", "poweroff" as the run goes */
	void (*on_phase)(void *user, const char *phase);
	void *phase_user;
};

/*
 * Do one run. Returns the run's status (RUN_OK ...); a job or kernel that
 * cannot be used at all returns -1 with an error printed (exit code 2).
 */
int run_one(const struct run_opts *o);

struct job;
struct kernel;
struct target;
struct modlist;
/* the text of /kpair/job, what the agent reads (guest/agent.c read_job); @input: a /dev/vdb */
char *run_job_text(const struct job *job, int input);
/* the target's modules and the job's fs module with their dependencies, from the kernel's
 * modules.dep (nothing when the kernel has no modules) */
int run_resolve_modules(const struct kernel *k, const struct target *t, const struct job *job,
			struct modlist *mods);

#endif
