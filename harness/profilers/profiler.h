/*
 * profiler.h - why a run's time went where it went: the profilers a run can carry.
 *
 * A profiled run is an extra boot, never one of the measured runs (a profiler slows the
 * guest). Its profiler is told before the boot what to add to QEMU (a -plugin and the
 * port the guest's kernel symbols arrive on) and turns what the run left into
 * DIR/profile.json after it: per kernel function the instructions executed (self), the
 * user-space bucket and the totals. profile_diff compares two such files. A new profiler is
 * a file defining its struct profiler and an entry in profilers[] (profiler.c).
 */
#ifndef KPAIR_PROFILER_H
#define KPAIR_PROFILER_H

#include <jansson.h>

struct target;

struct profiler {
	const char *name;
	const char *summary;
	/*
	 * before the boot: QEMU's -plugin option value and the file the guest's kernel
	 * symbols go to, both for run directory @dir (caller frees); -1 with an error
	 */
	int (*prepare)(const struct target *t, const char *dir, char **plugin, char **symbols);
	/*
	 * after it: @dir/profile.json from what the run left (@kernel_dir: the kernel's
	 * directory in the store, for its System.map); -1 with an error saying why none
	 */
	int (*collect)(const char *dir, const char *kernel_dir);
};

extern const struct profiler profiler_insns;

/* the profiler called @name (NULL: the first, insns), or NULL */
const struct profiler *profiler_find(const char *name);

/*
 * The difference of two profile.json files (stock, patched): per function the
 * instructions on each side, the delta and its share of the total delta, largest first;
 * the totals. New reference, or NULL with an error naming the file.
 */
json_t *profile_diff(const char *stock_dir, const char *patched_dir);
/* the top @n functions of @dir/profile.json on stdout, or why there is no profile */
void profile_print_top(const char *dir, const char *absent, int n);
/* "vfs_fsync_range +41% of the difference, ..." : the top @n functions (caller frees) */
char *profile_diff_sentence(json_t *diff, int n);

struct text;
/* report.html's "Where the instructions went" of comparison.json's @prof, A/B in @dir */
void profile_html(struct text *h, json_t *prof, const char *dir);

struct ab_opts;
/* kpair ab --profile: one profiled run a side after the measured ones, DIR/profile/diff.json */
int ab_profile(const struct ab_opts *o);
/* DIR/profile/diff.json (new reference), or NULL when the A/B has no profile */
json_t *ab_profile_load(const char *dir);

#endif
