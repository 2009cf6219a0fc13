/*
 * jfile.h - kpair's own JSON files (result.json, comparison.json, samples.jsonl) read
 * back as untrusted input, for the exporters: every missing or mistyped field is
 * named with its file.
 */
#ifndef KPAIR_JFILE_H
#define KPAIR_JFILE_H

#include <jansson.h>

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
/*
 * @key of object @obj (borrowed), for names with dots in them (fio's and stress-ng's
 * metrics): @label names @obj in messages, e.g. metrics["get.bogo_ops"]
 */
const char *ostr(struct jfile *f, json_t *obj, const char *label, const char *key, int required);
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

#endif
