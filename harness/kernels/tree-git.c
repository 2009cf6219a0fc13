/*
 * tree-git.c - a revision of a user's git repository (gitsrc.h), checked out
 * into kpair's own work tree, one work tree and O= per repository and target
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gitsrc.h"
#include "tree.h"
#include "util.h"

static int git_match(const struct build_spec *spec)
{
	return spec->git != NULL;
}

static int git_open(const struct build_spec *spec, struct tree *t)
{
	/* one work tree and O= per repository and target, whatever the revision */
	uint64_t h = 1469598103934665603ULL;
	const char *c;

	for (c = spec->git->git_dir; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	t->name = xasprintf("git-%s", spec->git->name);
	t->work = xasprintf("%s/images/build/%s-%08llx-%s", kpair_root(), t->name,
			    (unsigned long long)(h & 0xffffffffULL), spec->target);
	/* --config-only never touches the builds' O= (kbuild would rebuild them) */
	t->obj = xasprintf("%s/%s", t->work, spec->config_only ? "config-only" : "obj");
	t->src = xasprintf("%s/src", t->work);
	/* the commit alone: a tag added later (git describe) must not rebuild it */
	t->version = xasprintf("git %s", spec->sha);
	return 0;
}

/* checked out only when the build is not cached */
static int git_prepare(const struct build_spec *spec, struct tree *t)
{
	return gitsrc_checkout(spec->git, spec->sha, t->src);
}

static char *git_id(const struct build_spec *spec, const struct tree *t, const char *target,
		    const char *key)
{
	return xasprintf("%s-%.12s-%s-%.12s", t->name, spec->sha, target, key);
}

static const char *git_where(const struct build_spec *spec)
{
	return spec->git->dir;
}

static void git_record(const struct build_spec *spec, json_t *source)
{
	json_object_set_new(source, "git", gitsrc_json(spec->git, spec->rev, spec->sha));
}

static char *git_failed(const struct build_spec *spec)
{
	return xasprintf("revision '%s' (%.12s)", spec->rev, spec->sha);
}

const struct tree_kind tree_git = {
	.name = "git",
	.match = git_match,
	.open = git_open,
	.prepare = git_prepare,
	.id = git_id,
	.where = git_where,
	.record = git_record,
	.failed = git_failed,
};
