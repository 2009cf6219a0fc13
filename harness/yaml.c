/* yaml.c - YAML scalars and list items, and file:// URLs, for the LAVA job and device texts */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "yaml.h"

void yaml_str(struct text *t, const char *s)
{
	text_add(t, "'");
	for (; *s; s++) {
		if (*s == '\'')
			text_add(t, "''");
		else
			text_add(t, "%c", *s);
	}
	text_add(t, "'");
}

void yaml_item(struct text *t, int indent, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	text_add(t, "%*s- ", indent, "");
	yaml_str(t, s);
	text_add(t, "\n");
	free(s);
}

char *file_url(const char *path)
{
	static const char ok[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/";
	struct text t = { 0 };

	text_add(&t, "file://");
	for (; *path; path++) {
		if (strchr(ok, *path))
			text_add(&t, "%c", *path);
		else
			text_add(&t, "%%%02X", (unsigned char)*path);
	}
	return t.s;
}
