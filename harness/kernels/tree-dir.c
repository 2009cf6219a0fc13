/*
 * tree-dir.c - a kernel tree the user names (--source DIR): built in place,
 * out of tree in kpair's O=, its patches taken out again afterwards
 */
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "tree.h"
#include "util.h"

static int dir_match(const struct build_spec *spec)
{
	return strchr(spec->source, '/') != NULL;
}

static int dir_open(const struct build_spec *spec, struct tree *t)
{
	const char *slash = strrchr(spec->source, '/');

	t->name = xstrdup(slash[1] ? slash + 1 : spec->source);
	t->src = xstrdup(spec->source);
	t->work = xasprintf("%s/images/build/%s-%s", kpair_root(), t->name, spec->target);
	t->obj = xasprintf("%s/obj", t->work);
	return 0;
}

static int dir_ready(const struct build_spec *spec, struct tree *t)
{
	(void)spec;
	t->version = source_version(t->src);
	return t->version ? 0 : -1;
}

static char *dir_id(const struct build_spec *spec, const struct tree *t, const char *target,
		    const char *key)
{
	(void)spec;
	return xasprintf("%s-%s-%.12s", t->name, target, key);
}

static const char *dir_where(const struct build_spec *spec)
{
	return spec->source;
}

const struct tree_kind tree_dir = {
	.name = "dir",
	.match = dir_match,
	.open = dir_open,
	.ready = dir_ready,
	.id = dir_id,
	.where = dir_where,
};
