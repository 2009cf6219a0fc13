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

struct lava_opts {
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
int export_lava(const struct lava_opts *o);

/* @s as a YAML single-quoted scalar (only ' is special in it: doubled), appended to @t */
struct text;
void yaml_str(struct text *t, const char *s);

/*
 * kpair export kcidb: KCIDB v5 JSON for a run directory (result.json,
 * samples.jsonl) or an A/B directory (comparison.json, runs/<run>/), written
 * to @out. Returns an exit code.
 */
int export_kcidb(const char *dir, const char *out);

/* "file:///<path>" of absolute @path, percent-encoded where not unreserved or '/'; caller frees */
char *export_file_url(const char *path);

/*
 * A JSON file kpair wrote, read back as untrusted input: the getters take a
 * dotted field ("kernel.source.version", "order.3.side"); a missing required
 * field or one of the wrong type prints "'<file>': <field>: <what>" for the
 * first such field and counts the rest in @bad, so a caller reads every
 * field it needs and then checks @bad once.
 */
struct jfile {
	char *path;
	json_t *root;		/* owned */
	int bad;
};

int jfile_load(struct jfile *f, const char *dir, const char *name);
void jfile_release(struct jfile *f);
void jbad(struct jfile *f, const char *field, const char *what);
/* the value at dotted @field under @j (borrowed), or NULL */
json_t *jget(json_t *j, const char *field);
/* borrowed, or NULL when absent (or bad) */
const char *jstr(struct jfile *f, const char *field, int required);
json_t *jobj(struct jfile *f, const char *field, int required);
/* 1 with *v set when present, else 0 */
int jnum(struct jfile *f, const char *field, int required, double *v);
/* the same at @base.@field */
const char *kstr(struct jfile *f, const char *base, const char *field, int required);
int knum(struct jfile *f, const char *base, const char *field, int required, double *v);

/*
 * The sample records of @dir/samples.jsonl (new reference: an array; NULL,
 * with an error naming file and line, when a line is not a record: samples
 * exactly as the channel takes them (type, seq, metric, unit, value), hello,
 * done and error by their type). No file: no samples.
 */
json_t *export_load_samples(const char *dir);

/* kpair export lava|kcidb ...: argv[0] is "export" */
int cmd_export(int argc, char **argv);

#endif
