/*
 * gitsrc.h - a kernel developer's git repository as a build source. Revisions
 * are resolved with the user's git (read only: no index refresh, no lock) and
 * checked out into kpair's own work tree, a repository of its own that borrows
 * the user's objects (objects/info/alternates, as `git clone --shared`), so
 * the user's checkout, index, HEAD and stash are never touched. One work tree
 * per repository and target is reused: a checkout rewrites only the files that
 * differ, so the shared O= directory rebuilds only what the commits changed.
 */
#ifndef KPAIR_GITSRC_H
#define KPAIR_GITSRC_H

#include <jansson.h>

struct gitsrc {
	char *dir;		/* the user's tree, absolute */
	char *git_dir;		/* its common git directory, absolute */
	char *name;		/* the tree's base name, for ids */
};

void gitsrc_init(struct gitsrc *g);
void gitsrc_release(struct gitsrc *g);

/* is @dir the top of a git work tree? (no error printed) */
int gitsrc_is_repo(const char *dir);
/* open @dir; -1 with "--source 'DIR': not a git tree" when it is not one */
int gitsrc_open(struct gitsrc *g, const char *dir);
/* the commit id of @rev (any rev-parse name) into *sha (caller frees); -1 naming it */
int gitsrc_resolve(const struct gitsrc *g, const char *rev, char **sha);
/* one line of `git log -1 --format=FMT SHA` (caller frees), NULL on error */
char *gitsrc_show(const struct gitsrc *g, const char *sha, const char *fmt);
/* `git describe --tags --always` of @sha (caller frees) */
char *gitsrc_describe(const struct gitsrc *g, const char *sha);
/* 1 when the user's tree has changes or untracked files, 0 when clean, -1 on error */
int gitsrc_dirty(const struct gitsrc *g);
/* the commits of good..bad on bad's first-parent line, oldest first (owned strings) */
int gitsrc_range(const struct gitsrc *g, const char *good, const char *bad, char ***shas, int *n);
/* make @work (kpair's own tree) hold exactly @sha's files */
int gitsrc_checkout(const struct gitsrc *g, const char *sha, const char *work);
/* what kernel.json records of a revision: commit, describe, subject, dirty (new reference) */
json_t *gitsrc_json(const struct gitsrc *g, const char *rev, const char *sha);

#endif
