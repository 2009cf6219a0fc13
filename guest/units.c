/* units.c - number, size and duration parsing shared by the harness and the guest agent */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

struct suffix {
	const char *s;
	uint64_t mult;
};

static const struct suffix count_suffixes[] = {
	{ "", 1 }, { "k", 1000ULL }, { "m", 1000000ULL }, { "g", 1000000000ULL }, { NULL, 0 },
};

static const struct suffix size_suffixes[] = {
	{ "", 1 }, { "b", 1 },
	{ "k", 1ULL << 10 }, { "kb", 1ULL << 10 }, { "kib", 1ULL << 10 },
	{ "m", 1ULL << 20 }, { "mb", 1ULL << 20 }, { "mib", 1ULL << 20 },
	{ "g", 1ULL << 30 }, { "gb", 1ULL << 30 }, { "gib", 1ULL << 30 },
	{ "t", 1ULL << 40 }, { "tb", 1ULL << 40 }, { "tib", 1ULL << 40 },
	{ NULL, 0 },
};

/* durations are kept in milliseconds; a bare number means seconds */
static const struct suffix duration_suffixes[] = {
	{ "", 1000 }, { "s", 1000 }, { "ms", 1 }, { "m", 60000 }, { "min", 60000 },
	{ "h", 3600000 }, { NULL, 0 },
};

const char *unit_name(enum unit_kind kind)
{
	switch (kind) {
	case UNIT_COUNT: return "count";
	case UNIT_SIZE: return "size";
	case UNIT_DURATION: return "duration";
	case UNIT_STRING: return "string";
	case UNIT_FILE: return "file";
	}
	return "?";
}

int unit_parse(enum unit_kind kind, const char *s, uint64_t *out, const char **why)
{
	const struct suffix *tab;
	unsigned long long v;
	char sfx[8];
	char *end;
	size_t i;

	if (kind == UNIT_STRING || kind == UNIT_FILE) {
		for (i = 0; s[i]; i++)
			if (iscntrl((unsigned char)s[i])) {
				*why = "control character in text";
				return -1;
			}
		*out = i;
		return 0;
	}
	switch (kind) {
	case UNIT_COUNT: tab = count_suffixes; break;
	case UNIT_SIZE: tab = size_suffixes; break;
	default: tab = duration_suffixes; break;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s)) {
		*why = *s == '-' ? "negative value" : "not a number";
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE) {
		*why = "number too large";
		return -1;
	}
	for (i = 0; end[i] && !isspace((unsigned char)end[i]); i++) {
		if (i + 1 >= sizeof(sfx)) {
			*why = "bad unit";
			return -1;
		}
		sfx[i] = (char)tolower((unsigned char)end[i]);
	}
	sfx[i] = '\0';
	while (isspace((unsigned char)end[i]))
		i++;
	if (end[i]) {
		*why = "trailing text after value";
		return -1;
	}
	for (; tab->s; tab++) {
		if (strcmp(tab->s, sfx))
			continue;
		if (v && tab->mult > UINT64_MAX / v) {
			*why = "number too large";
			return -1;
		}
		*out = v * tab->mult;
		return 0;
	}
	*why = "bad unit";
	return -1;
}
