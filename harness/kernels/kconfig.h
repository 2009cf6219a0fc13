/*
 * kconfig.h - a user's whole kernel .config made fit for kpair: the options
 * the target needs (its fragment in configs/kconfig/) forced on top, each one
 * recorded with the value it had, and checked again after olddefconfig. Pure
 * text functions; harness/kernels/build.c runs kconfig itself.
 */
#ifndef KPAIR_KCONFIG_H
#define KPAIR_KCONFIG_H

#include <stddef.h>
#include <jansson.h>

/*
 * The value of CONFIG_@opt in @config ("y", "m", "\"text\"", "64") into @buf;
 * returns 1 when set, 0 when "is not set" or absent.
 */
int kconfig_get(const char *config, const char *opt, char *buf, size_t len);

/*
 * @config with every requirement of @required that it does not meet forced:
 * a required "=y" of a tristate that kpair loads as a module (virtio, the
 * scratch file systems, brd, crc32c) is met by "=m" too. Returns the merged
 * text (caller frees) and sets *forced to [{option, was, now}] (new
 * reference; was is null for an option the config did not set).
 */
char *kconfig_force(const char *config, const char *required, json_t **forced);

/* the requirements of @required that @config does not meet, as "CONFIG_X=v" strings (new) */
json_t *kconfig_unmet(const char *config, const char *required);

#endif
