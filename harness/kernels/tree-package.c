/*
 * tree-package.c - Debian's linux-source-X.Y package: downloaded, never
 * installed, its tarball unpacked once into images/build/<package>-<target>/src
 */
#include <stdlib.h>
#include <string.h>

#include "source.h"
#include "tree.h"
#include "util.h"

static int package_match(const struct build_spec *spec)
{
	return !strchr(spec->source, '/') && !strncmp(spec->source, "linux-source-", 13);
}

static int package_open(const struct build_spec *spec, struct tree *t)
{
	t->name = xstrdup(spec->source);
	t->work = xasprintf("%s/images/build/%s-%s", kpair_root(), t->name, spec->target);
	t->obj = xasprintf("%s/obj", t->work);
	t->src = xasprintf("%s/src", t->work);
	return 0;
}

static int package_ready(const struct build_spec *spec, struct tree *t)
{
	char *pkgver = NULL, *mv;

	if (source_unpack_package(spec->source, t->work, t->src, &pkgver) < 0)
		return -1;
	mv = source_version(t->src);
	if (mv)
		t->version = xasprintf("%s (%s %s)", mv, spec->source, pkgver);
	free(mv);
	free(pkgver);
	return t->version ? 0 : -1;
}

static char *package_id(const struct build_spec *spec, const struct tree *t, const char *target,
			const char *key)
{
	(void)spec;
	return xasprintf("%s-%s-%.12s", t->name, target, key);
}

static const char *package_where(const struct build_spec *spec)
{
	return spec->source;
}

const struct tree_kind tree_package = {
	.name = "package",
	.match = package_match,
	.open = package_open,
	.ready = package_ready,
	.id = package_id,
	.where = package_where,
};
