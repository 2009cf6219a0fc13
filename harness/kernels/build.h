/*
 * build.h - patched kernels built from source. The tree (tree.h: a Debian
 * linux-source package unpacked once, a directory the user names, a git
 * repository's revision checked out into kpair's own tree) is configured from
 * `make tinyconfig` plus the target's fragment in configs/kconfig/ (merged
 * with the kernel's own merge_config.sh), patched, and built out of tree.
 * Stock and patched builds share one object directory, so a patched build
 * after its stock build recompiles only what the patches touch. Artifacts
 * land in images/kernels/<id>/ like fetched kernels, keyed by a hash of the
 * source version, the merged config and the ordered patches.
 */
#ifndef KPAIR_BUILD_H
#define KPAIR_BUILD_H

#include "tree.h"

/* a whole .config is for @target's architecture (and is a .config); -1 with the reason */
int build_config_fits(const char *config, const char *target);

/* build (or find in the cache) one kernel; its id goes to @id (caller frees) */
int kernel_build(const struct build_spec *spec, char **id);

#endif
