/*
 * compare.h - two sets of runs side by side: per-metric samples gathered
 * from result.json files (or plain sample files), the statistics of
 * harness/stats.c, verdicts (the claim's metric as primary endpoint, Holm's
 * correction across the other metrics), the
 * claim check, comparison.json and the terminal table.
 */
#ifndef KPAIR_COMPARE_H
#define KPAIR_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#include "stats.h"

#define COMPARE_FORMAT "kpair-comparison/1"
#define CMP_MAX_METRICS 64

enum better { BETTER_LOWER, BETTER_HIGHER, BETTER_NONE };

struct metric {
	char *name, *unit;
	enum better better;
	int per_op;			/* several values per run: the run's median is compared */
	double *a, *b;			/* one value per run */
	size_t na, nb;
	json_t *all_a, *all_b;		/* every raw value, per run: [[...], ...] (owned) */
	struct comparison c;
};

struct claim {
	int present;
	char *metric, *source, *note;
	enum better better;
	double stock, patched, change;	/* published medians and change (fraction); NaN if absent */
	double tolerance;		/* fraction of the published effect that may be missing */
	enum claim_result result;
	char why[256];
};

struct cmp {
	struct metric m[CMP_MAX_METRICS];
	int n;
	double threshold;		/* no-change band, fraction */
	int failed_a, failed_b;		/* runs that did not end ok */
	struct claim claim;
	int primary;			/* index of the primary endpoint (the claim's metric), or -1 */
};

void cmp_init(struct cmp *c, double threshold);
void cmp_release(struct cmp *c);

/* direction of a metric from its unit: times are lower-better, rates higher */
enum better unit_better(const char *unit);

/* add one run's result.json (borrowed) to side 0 (stock) or 1 (patched) */
int cmp_add_result(struct cmp *c, int side, json_t *result);
/* add plain samples, one per run */
int cmp_add_values(struct cmp *c, int side, const char *metric, const char *unit,
		   enum better better, const double *v, size_t n);
/* take the claim of a job (the "claim" object of a job's json, borrowed) */
void cmp_set_claim(struct cmp *c, const char *metric, const char *better, const char *stock,
		   const char *patched, const char *change, const char *source, const char *note);
/* statistics; the claim's metric alone at alpha, Holm across the others; verdicts; claim */
void cmp_compute(struct cmp *c);
/* the metrics part of comparison.json (new reference) */
json_t *cmp_json(const struct cmp *c);
/* the verdict table, lkp ncompare style, fitting CMP_COLUMNS for any magnitude */
#define CMP_COLUMNS 100
void cmp_print(const struct cmp *c, const char *label_a, const char *label_b);
/* one line of text, wrapped at spaces so that no line passes CMP_COLUMNS; frees @text */
void print_wrapped(char *text);
/*
 * A ratio as a change, at most 8 chars: "+12.3%", past 4 digits of percent
 * a ratio "x50634", past 6 digits "x5.1e+06"; "-" for no ratio.
 */
void fmt_change(char *buf, size_t len, double ratio);
/* @v printed with @fmt (one double), or "-" when it is NaN or infinite */
void fmt_known(char *buf, size_t len, const char *fmt, double v) __attribute__((format(printf, 3, 0)));
/* a CI bound, at most 6 chars: "+12.3", past 3 digits of percent "x506", "x5e+06" */
void fmt_ci_bound(char *buf, size_t len, double ratio);
/* Lehr's rule: runs a side to detect a shift @delta at 80 % power, alpha 0.05 */
int runs_needed(double cv, double delta);

/* read numbers, one a line ('#' comments), into a malloc'd array */
int read_samples_file(const char *path, double **v, size_t *n);
/* every result.json at DIR, DIR/<x>/ or DIR/<x>/<y>/ (new reference: array) */
json_t *load_results(const char *dir);

#endif
