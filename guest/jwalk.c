/*
 * jwalk.c - a minimal JSON walker for the static guest agent (no jansson
 * there): it calls back with every number and string and its path, keys and
 * array indices joined by '/' ("jobs/0/write/clat_ns/percentile/99.000000").
 * Used to read fio's --output-format=json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jwalk.h"

static void jw_ws(struct jwalk *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

/* a string; copied (escapes kept as-is) into @out when it is not NULL */
static int jw_string(struct jwalk *j, char *out, size_t len)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return -1;
	for (j->p++; j->p < j->end && *j->p != '"'; j->p++) {
		if (*j->p == '\\' && ++j->p >= j->end)
			return -1;
		if (out && n + 1 < len)
			out[n++] = *j->p;
	}
	if (out)
		out[n] = '\0';
	if (j->p >= j->end)
		return -1;
	j->p++;
	return 0;
}

static int jw_push(struct jwalk *j, const char *name, size_t *saved)
{
	int n;

	*saved = j->plen;
	n = snprintf(j->path + j->plen, sizeof(j->path) - j->plen, "%s%s", j->plen ? "/" : "", name);
	if (n < 0 || (size_t)n >= sizeof(j->path) - j->plen)
		return -1;
	j->plen += n;
	return 0;
}

static int jw_container(struct jwalk *j, char close)
{
	char key[128];
	size_t saved;
	int idx = 0;

	j->p++;
	jw_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		jw_ws(j);
		if (close == '}') {
			if (jw_string(j, key, sizeof(key)) < 0)
				return -1;
			jw_ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return -1;
		} else {
			snprintf(key, sizeof(key), "%d", idx++);
		}
		if (jw_push(j, key, &saved) < 0 || jw_value(j) < 0)
			return -1;
		j->plen = saved;
		j->path[saved] = '\0';
		jw_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			return 0;
		}
		return -1;
	}
}

int jw_value(struct jwalk *j)
{
	char *e;
	double v;
	int r;

	jw_ws(j);
	if (j->p >= j->end || ++j->depth > 32)
		return -1;
	if (*j->p == '{' || *j->p == '[') {
		r = jw_container(j, *j->p == '{' ? '}' : ']');
	} else if (*j->p == '"') {
		char s[128];

		r = jw_string(j, j->str ? s : NULL, sizeof(s));
		if (!r && j->str)
			j->str(j->user, j->path, s);
	} else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
		j->p += 4;
		r = 0;
	} else if (!strncmp(j->p, "false", 5)) {
		j->p += 5;
		r = 0;
	} else {
		v = strtod(j->p, &e);
		r = e == j->p ? -1 : 0;
		if (!r) {
			j->p = e;
			j->num(j->user, j->path, v);
		}
	}
	j->depth--;
	return r;
}

