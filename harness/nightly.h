/*
 * nightly.h - unattended nightly runs: a nightly file (INI, one option table)
 * names jobs x targets, the kernel under test (a Debian package ABI, a source
 * tree, or a source plus a patch series) and the baseline rule (the last good
 * night from the history index, or a pinned kernel). Each job x target is an
 * A/B (ab.h) of the baseline against tonight's kernel in
 * results/nightly/<date>/<job>-<target>/; history.h writes summary.json,
 * junit.xml, the index and its trend page.
 */
#ifndef KPAIR_NIGHTLY_H
#define KPAIR_NIGHTLY_H

#include <jansson.h>
#include <stdint.h>

#include "config.h"

struct nightly {
	char *file;
	/* [nightly] */
	char *name, *results, *jobs, *targets, *sets, *threshold, *hosts, *backend;
	uint64_t runs, seed, retries;
	/* [kernel]: the kernel under test */
	char *package, *source, *branch, *patches, *series, *config, *fragment, *kernel_sets;
	/* [baseline] */
	char *rule, *base_kernel, *base_sets;
	char *bisect;		/* [nightly] bisect: off or auto */
	unsigned char seen[32];
};

extern const struct opt nightly_opts[];

void nightly_init(struct nightly *n);
void nightly_release(struct nightly *n);
/* parse @path with @nset "section.key=value" overrides */
int nightly_load(struct nightly *n, const char *path, char *const *sets, int nset);

/*
 * One night (@date "YYYY-MM-DD", NULL: today). Returns the exit status:
 * 0 no regression, 1 a change for the worse first confirmed tonight (with fewer
 * than 3 nights: a metric the night's A/B called regressed), 2 an infrastructure
 * failure (a kernel that could not be had, a run that failed).
 */
int nightly_run(const struct nightly *n, const char *date);

/*
 * nightly-cp.c: the change points of each entry of @entries (tonight's, @date) over the
 * nights of @index and tonight, into each entry's "changepoints"; sets its status from
 * them (the A/B's kept as "ab_status") once there are 3 nights or more.
 */
void nightly_changepoints(json_t *index, const char *root, const char *date, json_t *entries);
/* ", no new change point in N series", ", 1 new change point: ...", or "" (caller frees) */
char *nightly_cp_line(json_t *entries);

/*
 * nightly-bisect.c: with nightly.bisect = auto, each entry regressed tonight is bisected
 * between the kernels on either side of its change (the nights around a confirmed change
 * point, or the A/B's two sides while the A/B decides), into <entry>/bisect/; the result is
 * the entry's "bisect". A package nightly names the two package versions instead.
 */
void nightly_bisect(const struct nightly *n, const char *ndir, json_t *entries);
/* "; write_s bisected to 3a3d44854de8 (\"subject\")", or "" (caller frees) */
char *nightly_bisect_line(json_t *entries);

/* helpers of the nightly's files: pieces of a list, a path from the nightly file, "2%" */
int nightly_split(const char *s, const char *sep, char **out, int max);
void nightly_free_list(char **v, int n);
char *nightly_path(const char *p);
int nightly_threshold(const char *s, double *out);

#endif
