/*
 * buildtree.h - what harness/build.c and harness/build-whole.c share: the
 * source tree a build runs in, the kernel architectures, and make itself.
 */
#ifndef KPAIR_BUILDTREE_H
#define KPAIR_BUILDTREE_H

#include <jansson.h>

#include "build.h"

struct tree {
	char *name;		/* for ids: linux-source-6.1, or the directory's base name */
	char *src;		/* the source tree */
	char *work;		/* images/build/<name>-<target> */
	char *obj;		/* work/obj: the O= directory */
	char *version;		/* VERSION.PATCHLEVEL.SUBLEVEL, plus the package version */
	int lock;
};

struct karch {
	const char *target_arch;	/* Debian arch of the target file */
	const char *arch;		/* kernel ARCH= */
	const char *cross;		/* CROSS_COMPILE= */
	const char *image;		/* make target and its path under obj */
	const char *image_path;
};

/* make -C src O=obj ARCH= CROSS_COMPILE= -jN @what [@var], logged to @log */
int kmake_var(const struct tree *t, const struct karch *ka, const char *what, const char *var,
	      int jobs, const char *log, int timeout_ms);
int kmake(const struct tree *t, const struct karch *ka, const char *what, int jobs,
	  const char *log, int timeout_ms);

/* configure from a whole .config (spec->config), forcing @fragment's options */
int configure_whole(const struct tree *t, const struct karch *ka, const char *config,
		    const char *fragment, const char *target, const char *log, json_t **forced);

/* print the options kpair forced onto a whole config (@forced borrowed; nothing if none) */
void build_say_forced(const char *config, const char *target, json_t *forced);

/* copy the build's artifacts (and modules) into images/kernels/@id with its kernel.json */
int build_install(const struct tree *t, const struct build_spec *spec, const struct karch *ka,
		  const char *id, double secs, const char *log, const char *key, json_t *extra);

#endif
