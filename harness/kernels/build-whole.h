/*
 * build-whole.h - a build from a user's whole .config (the options kpair
 * needs forced on top) and the install of any build into the store
 */
#ifndef KPAIR_BUILD_WHOLE_H
#define KPAIR_BUILD_WHOLE_H

#include <jansson.h>

#include "tree.h"

/* configure from a whole .config (spec->config), forcing @fragment's options */
int configure_whole(const struct tree *t, const struct karch *ka, const char *config,
		    const char *fragment, const char *target, const char *log, json_t **forced);

/* print the options kpair forced onto a whole config (@forced borrowed; nothing if none) */
void build_say_forced(const char *config, const char *target, json_t *forced);

/* copy the build's artifacts (and modules) into images/kernels/@id with its kernel.json */
int build_install(const struct tree *t, const struct build_spec *spec, const struct karch *ka,
		  const char *id, double secs, const char *log, const char *key, json_t *extra);

#endif
