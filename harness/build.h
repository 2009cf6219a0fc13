/*
 * build.h - patched kernels built from source. A Debian linux-source
 * package (unpacked once) or a tree the user names is configured from
 * `make tinyconfig` plus the target's fragment in configs/kconfig/ (merged
 * with the kernel's own merge_config.sh), patched, and built out of tree.
 * A git repository's revisions are checked out into kpair's own tree
 * (gitsrc.h) and built there in the same way.
 * Stock and patched builds share one object directory, so a patched build
 * after its stock build recompiles only what the patches touch. Artifacts
 * land in images/kernels/<id>/ like fetched kernels, keyed by a hash of the
 * source version, the merged config and the ordered patches.
 */
#ifndef KPAIR_BUILD_H
#define KPAIR_BUILD_H

#define BUILD_MAX_PATCHES 16

struct gitsrc;

struct build_spec {
	const char *source;		/* "linux-source-6.1" or a directory */
	const char *fragment;		/* NULL: configs/kconfig/<target>.config */
	/*
	 * A whole .config instead of tinyconfig + fragment: the fragment's
	 * options are forced on top (listed in kernel.json) and modules stay
	 * modules, installed into the kernel's store directory.
	 */
	const char *config;
	/* a git source: build commit @sha (named @rev by the user) of @git */
	const struct gitsrc *git;
	const char *sha, *rev;
	int config_only;		/* configure, print, stop: *id stays NULL */
	const char *target;		/* "x86_64" */
	const char *patches[BUILD_MAX_PATCHES];
	int npatches;
	int jobs;			/* make -j */
};

/* a whole .config is for @target's architecture (and is a .config); -1 with the reason */
int build_config_fits(const char *config, const char *target);

/* build (or find in the cache) one kernel; its id goes to @id (caller frees) */
int kernel_build(const struct build_spec *spec, char **id);

#endif
