/*
 * export.h - hand kpair's jobs and results to the lab engines that already
 * exist: a LAVA job definition and device dictionary (kpair export lava) and
 * KCIDB v5 JSON (kpair export kcidb).
 */
#ifndef KPAIR_EXPORT_H
#define KPAIR_EXPORT_H

#include <jansson.h>

/* exit codes of kpair export: 0 written, 2 usage or bad input, 3 an image or FILE not written */
#define EXPORT_USAGE 2
#define EXPORT_SETUP_FAILED 3

struct lava_export_opts {
	const char *job_path;
	const char *kernel;		/* id in the store, or a directory; NULL: the target's */
	char *const *sets;		/* "section.key=value" overrides */
	int nset;
	const char *out_dir;		/* gets job.yaml, device.yaml and the images */
};

/*
 * kpair export lava: the kernel, kpair's initramfs (agent, modules,
 * /kpair/job) and the scratch disk in @o->out_dir, with a LAVA job whose
 * monitors turn the agent's console records into test cases with
 * measurements, and a QEMU device dictionary for it. Returns an exit code.
 */
int export_lava(const struct lava_export_opts *o);


/*
 * kpair export kcidb: KCIDB v5 JSON for a run directory (result.json,
 * samples.jsonl) or an A/B directory (comparison.json, runs/<run>/), written
 * to @out. Returns an exit code.
 */
int export_kcidb(const char *dir, const char *out);


/*
 * One exporter: kpair export NAME. A new one is a file that defines its struct
 * exporter and an entry in exporters[] (export.c).
 */
struct exporter {
	const char *name;
	const char *usage;	/* its lines of kpair export's usage, from "kpair export NAME" */
	/* argv[0] is NAME; returns an exit code (EXPORT_*) */
	int (*cmd)(int argc, char **argv);
};

extern const struct exporter exporter_lava, exporter_kcidb;

/* after an error(): kpair export's usage on stderr; returns EXPORT_USAGE */
int export_usage_exit(void);

/* kpair export NAME ...: argv[0] is "export" */
int cmd_export(int argc, char **argv);

#endif
