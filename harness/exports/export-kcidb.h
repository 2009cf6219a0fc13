/*
 * export-kcidb.h - what the two halves of kpair export kcidb share:
 * export-kcidb.c turns kernels and run directories into checkouts, builds
 * and tests; export-kcidb-ab.c adds an A/B directory's verdicts.
 */
#ifndef KPAIR_EXPORT_KCIDB_H
#define KPAIR_EXPORT_KCIDB_H

#include <jansson.h>

#include "jfile.h"

#define ORIGIN "kpair"
#define EXCERPT_MAX 16384	/* the schema's maxLength of log_excerpt */

/* the output: objects in order, each id once */
struct kcidb {
	json_t *checkouts, *builds, *tests;	/* owned arrays */
	json_t *seen;				/* owned: id -> true */
};

/* append @o (stolen) to @list unless an object with its id is already there */
void kc_add(struct kcidb *k, json_t *list, json_t *o);
/* @s with every character outside [A-Za-z0-9_-] as '_': one segment of a test path */
char *kc_path_seg(const char *s);
/* {name, url} of @dir/@name when it exists, appended to @list */
void kc_add_file(json_t *list, const char *dir, const char *name);
/*
 * The checkout and build of the kernel object at @base of @f ("kernel" of a
 * result.json, "sides.stock.kernel" of a comparison.json); the build's id
 * goes to *build_id (caller frees).
 */
int kc_add_kernel(struct kcidb *k, struct jfile *f, const char *base, char **build_id);
/* KCIDB test status of a kpair run status */
const char *kc_run_status(const char *status);
/* one run directory: its kernel, the run test and a test per metric; *build_id may be NULL */
int kc_add_run(struct kcidb *k, const char *dir, char **build_id);
/* one A/B directory: both kernels, every run, a test per metric verdict and the A/B's */
int kc_add_ab(struct kcidb *k, const char *dir);

#endif
