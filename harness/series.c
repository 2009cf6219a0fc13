/* series.c - quilt-style series files: the ordered patches of a kernel under test */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "util.h"

void series_init(struct series *s)
{
	memset(s, 0, sizeof(*s));
}

void series_release(struct series *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->patches[i]);
		free(s->names[i]);
	}
	free(s->file);
	series_init(s);
}

/* one line: "name [-p1]"; blank lines and '#' comments are skipped */
static int series_line(struct series *s, const char *dir, char *line, unsigned lineno)
{
	char *name, *opt, *save = NULL, *rel, *abs;

	name = strtok_r(line, " \t\r", &save);
	if (!name || *name == '#')
		return 0;
	opt = strtok_r(NULL, " \t\r", &save);
	if (opt && *opt != '#' && strcmp(opt, "-p1"))
		return error("%s:%u: '%s': only -p1 patches are supported", s->file, lineno, opt);
	if (s->n >= BUILD_MAX_PATCHES)
		return error("%s:%u: more than %d patches", s->file, lineno, BUILD_MAX_PATCHES);
	rel = name[0] == '/' ? xstrdup(name) : xasprintf("%s/%s", dir, name);
	abs = realpath(rel, NULL);
	if (!abs) {
		error("%s:%u: patch '%s': %s", s->file, lineno, name, strerror(errno));
		free(rel);
		return -1;
	}
	free(rel);
	s->patches[s->n] = abs;
	s->names[s->n] = xstrdup(name);
	s->n++;
	return 0;
}

int series_load(struct series *s, const char *path)
{
	char *buf = NULL, *dir, *slash, *line, *next;
	unsigned lineno = 0;
	int ret = -1;

	s->file = xstrdup(path);
	if (read_file(path, &buf, NULL) < 0)
		return -1;
	dir = xstrdup(path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	for (line = buf; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (series_line(s, dir, line, lineno) < 0)
			goto out;
	}
	if (!s->n) {
		error("%s: no patches", path);
		goto out;
	}
	ret = 0;
out:
	free(dir);
	free(buf);
	return ret;
}
