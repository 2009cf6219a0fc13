/*
 * build.h - patched kernels built from source. A Debian linux-source
 * package (unpacked once) or a tree the user names is configured from
 * `make tinyconfig` plus the target's fragment in configs/kconfig/ (merged
 * with the kernel's own merge_config.sh), patched, and built out of tree.
 * Stock and patched builds share one object directory, so a patched build
 * after its stock build recompiles only what the patches touch. Artifacts
 * land in images/kernels/<id>/ like fetched kernels, keyed by a hash of the
 * source version, the merged config and the ordered patches.
 */
#ifndef KPAIR_BUILD_H
#define KPAIR_BUILD_H

#define BUILD_MAX_PATCHES 16

struct build_spec {
	const char *source;		/* "linux-source-6.1" or a directory */
	const char *fragment;		/* NULL: configs/kconfig/<target>.config */
	const char *target;		/* "x86_64" */
	const char *patches[BUILD_MAX_PATCHES];
	int npatches;
	int jobs;			/* make -j */
};

/* build (or find in the cache) one kernel; its id goes to @id (caller frees) */
int kernel_build(const struct build_spec *spec, char **id);

#endif
