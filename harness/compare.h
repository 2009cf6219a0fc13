/*
 * compare.h - two sets of runs side by side: per-metric samples gathered
 * from result.json files (or plain sample files), each metric's verdict
 * (verdict.h), the family rule over the metrics (a primary metric alone,
 * Benjamini-Hochberg over the others), the failed runs of each side (Fisher's
 * exact test), the claim check, comparison.json and the terminal table.
 */
#ifndef KPAIR_COMPARE_H
#define KPAIR_COMPARE_H

#include <jansson.h>
#include <stddef.h>

#include "verdict.h"

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

/* where the primary metric was named */
enum primary_source { PRIMARY_NONE, PRIMARY_CLAIM, PRIMARY_JOB, PRIMARY_OPTION };
extern const char *const primary_source_names[];

/*
 * The failed runs of both sides: Fisher's exact test of "patched fails more
 * often", and the failures a host cannot explain (the guest's own: panic,
 * hang, workload or agent error) on the patched side only.
 */
enum failure_kind {
	FAIL_NONE,		/* no run failed */
	FAIL_CHANCE,		/* failures the host explains, or as likely on either side */
	FAIL_MORE,		/* patched fails more often: Fisher's p < alpha */
	FAIL_UNEXPLAINED,	/* the patched guest failed where the stock one never did */
	FAIL_FEWER,		/* stock fails more often: Fisher's p < alpha */
};
extern const char *const failure_names[];

struct failures {
	double p_more, p_fewer;		/* one-sided Fisher: patched fails more / less often */
	enum failure_kind kind;
	char why[256];
};

/* what the whole comparison says, and the exit status it gives */
enum outcome { OUTCOME_PASS, OUTCOME_REGRESSED, OUTCOME_FAILURES };
extern const char *const outcome_names[];

struct cmp {
	struct metric m[CMP_MAX_METRICS];
	int n;
	double threshold;		/* no-change band, fraction */
	int ok_a, ok_b;			/* runs that ended ok */
	int failed_a, failed_b;		/* runs that did not end ok */
	int guest_failed_a, guest_failed_b;	/* of those: the guest's own failures */
	char first_fail[2][320];	/* each side's first failure, "status: reason" */
	struct failures fail;
	struct claim claim;
	char *primary_name;		/* named by the job or --metric; else the claim's */
	enum primary_source primary_source;
	int primary;			/* index of the primary metric, or -1 */
	int secondaries;		/* performance metrics in the Benjamini-Hochberg family */
	json_t *ctr_runs[2];		/* each good run's kernel counters (owned arrays) */
	json_t *counters;		/* their family's comparison (counters-cmp.c), or NULL */
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
/*
 * the primary metric, named before any run (--metric, or the job's compare.metric):
 * tested alone; without it the claim's metric is primary
 */
void cmp_set_primary(struct cmp *c, const char *metric, enum primary_source source);
/* take the claim of a job (the "claim" object of a job's json, borrowed) */
void cmp_set_claim(struct cmp *c, const char *metric, const char *better, const char *stock,
		   const char *patched, const char *change, const char *source, const char *note);
/* statistics; the primary metric alone at alpha, Benjamini-Hochberg across the others */
void cmp_compute(struct cmp *c);
/* what the comparison says as a whole: a regression, failures that block a pass, or a pass */
enum outcome cmp_outcome(const struct cmp *c);
/* the exit status of ab, calibrate and compare for @o: 0 pass, 1 regressed, 3 failures */
int outcome_exit(enum outcome o);
/* the outcome written in comparison.json @cmp (borrowed); OUTCOME_PASS for an old file */
enum outcome outcome_of_json(json_t *cmp);
/* the metrics part of comparison.json (new reference) */
json_t *cmp_json(const struct cmp *c);
/* one metric of comparison.json (@m borrowed) back into @c; -1 when it has no verdict */
int comparison_from_json(json_t *m, struct comparison *c);
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
/*
 * runs a side at which metric @i's verdict calls a shift of @delta (fraction) at
 * 80 % power under kpair's rule: as the only change in its family; -1 unknown
 */
int cmp_runs_needed(const struct cmp *c, int i, double delta);
/* the p a change in metric @i alone must reach: alpha, or alpha / m among m secondaries */
double cmp_alone_level(const struct cmp *c, int i);

/* read numbers, one a line ('#' comments), into a malloc'd array */
int read_samples_file(const char *path, double **v, size_t *n);
/* every result.json at DIR, DIR/<x>/ or DIR/<x>/<y>/ (new reference: array) */
json_t *load_results(const char *dir);

#endif
