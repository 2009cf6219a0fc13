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

#endif
