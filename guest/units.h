/* units.h - number, size and duration parsing shared by the harness and the guest agent */
#ifndef KPAIR_UNITS_H
#define KPAIR_UNITS_H

#include <stdint.h>

enum unit_kind {
	UNIT_COUNT,	/* plain integer: 300000, 10k (x1000) */
	UNIT_SIZE,	/* bytes, binary suffixes: 512, 4K, 64M, 2G */
	UNIT_DURATION,	/* stored in milliseconds: 120s, 500ms, 2m, 1h */
	UNIT_STRING,	/* text, e.g. an argv list: its length is the value */
	UNIT_FILE,	/* a host file the harness copies into the initramfs: its path's length */
};

/*
 * Parse @s as a value of @kind into @out (UNIT_STRING, UNIT_FILE: its length;
 * control characters refused). Returns 0, or -1 with a short
 * lowercase reason (static string) in *why.
 */
int unit_parse(enum unit_kind kind, const char *s, uint64_t *out, const char **why);
const char *unit_name(enum unit_kind kind);

#endif
