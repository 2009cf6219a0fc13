/* gitsrc.c - a user's kernel git repository: revisions, and kpair's own checkout of them */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitsrc.h"
#include "spawn.h"
#include "util.h"

#define GIT_TIMEOUT_MS (10 * 60 * 1000)

void gitsrc_init(struct gitsrc *g)
{
	memset(g, 0, sizeof(*g));
}

void gitsrc_release(struct gitsrc *g)
{
	free(g->dir);
	free(g->git_dir);
	free(g->name);
	gitsrc_init(g);
}

/* `git -C @dir ARGS...` (at most 8); stdout's first line into *out (caller frees) when asked */
static int git_in(const char *dir, const char *const *args, char **out, struct spawn_result *r)
{
	const char *argv[12] = { "git", "-C", dir };
	int i;

	for (i = 0; args[i] && i < 8; i++)
		argv[3 + i] = args[i];
	argv[3 + i] = NULL;
	if (spawn_run(argv, GIT_TIMEOUT_MS, r) < 0 || r->exit_code)
		return -1;
	if (out) {
		*out = xstrdup(r->out ? r->out : "");
		(*out)[strcspn(*out, "\n")] = '\0';
	}
	return 0;
}

/* git_in that prints the command's stderr on failure */
static int git_checked(const char *dir, const char *const *args, char **out)
{
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = git_in(dir, args, out, &r);

	if (ret < 0)
		error("git -C %s %s %s: %s", dir, args[0], args[1] ? args[1] : "",
		      r.timed_out ? "timed out" : *r.err ? r.err : "failed");
	spawn_result_release(&r);
	return ret;
}

int gitsrc_is_repo(const char *dir)
{
	/* the top of a work tree: a kernel unpacked somewhere inside another repository is not */
	static const char *const args[] = { "rev-parse", "--show-toplevel", NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	char *top = NULL, *real = realpath(dir, NULL);
	int ret;

	ret = real && git_in(dir, args, &top, &r) == 0 && !strcmp(top, real);
	spawn_result_release(&r);
	free(top);
	free(real);
	return ret;
}

int gitsrc_open(struct gitsrc *g, const char *dir)
{
	static const char *const top[] = { "rev-parse", "--show-toplevel", NULL };
	static const char *const common[] = { "rev-parse", "--path-format=absolute",
					      "--git-common-dir", NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	const char *slash;
	char *mk;

	gitsrc_release(g);
	if (!path_exists(dir))
		return error("--source '%s': %s", dir, strerror(ENOENT));
	if (!gitsrc_is_repo(dir))
		return error("--source '%s': not a git tree (a revision needs the top of a git "
			     "work tree)", dir);
	if (git_in(dir, top, &g->dir, &r) == 0) {
		spawn_result_release(&r);
		git_in(dir, common, &g->git_dir, &r);
	}
	if (!g->dir || !g->git_dir) {
		error("--source '%s': git cannot read it: %s", dir, r.err);
		spawn_result_release(&r);
		return -1;
	}
	spawn_result_release(&r);
	mk = xasprintf("%s/Makefile", g->dir);
	if (!path_exists(mk)) {
		free(mk);
		return error("--source '%s': no Makefile at the top of '%s': not a kernel tree",
			     dir, g->dir);
	}
	free(mk);
	slash = strrchr(g->dir, '/');
	g->name = xstrdup(slash && slash[1] ? slash + 1 : "linux");
	return 0;
}

int gitsrc_resolve(const struct gitsrc *g, const char *rev, char **sha)
{
	char *spec;
	const char *args[] = { "rev-parse", "--verify", "--quiet", "--end-of-options", NULL, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret;

	*sha = NULL;
	if (!*rev || rev[0] == '-')
		return error("revision '%s' is not a revision name", rev);
	spec = xasprintf("%s^{commit}", rev);
	args[4] = spec;
	ret = git_in(g->dir, args, sha, &r);
	if (ret < 0)
		error("revision '%s' does not exist in '%s'", rev, g->dir);
	spawn_result_release(&r);
	free(spec);
	return ret;
}

char *gitsrc_show(const struct gitsrc *g, const char *sha, const char *fmt)
{
	char *f = xasprintf("--format=%s", fmt), *out = NULL;
	const char *args[] = { "log", "-1", f, sha, "--", NULL };

	if (git_checked(g->dir, args, &out) < 0)
		out = NULL;
	free(f);
	return out;
}

char *gitsrc_describe(const struct gitsrc *g, const char *sha)
{
	const char *args[] = { "describe", "--tags", "--always", "--abbrev=12", sha, NULL };
	char *out = NULL;

	if (git_checked(g->dir, args, &out) < 0)
		return NULL;
	return out;
}

int gitsrc_dirty(const struct gitsrc *g)
{
	/* --no-optional-locks: status would otherwise refresh (write) the user's index */
	const char *argv[] = { "git", "--no-optional-locks", "-C", g->dir, "status", "--porcelain",
			       "--untracked-files=normal", NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret;

	if (spawn_checked(argv, NULL, GIT_TIMEOUT_MS, &r) < 0)
		ret = -1;
	else
		ret = r.out && *r.out;
	spawn_result_release(&r);
	return ret;
}

int gitsrc_range(const struct gitsrc *g, const char *good, const char *bad, char ***shas, int *n)
{
	const char *anc[] = { "merge-base", "--is-ancestor", good, bad, NULL };
	char *range = xasprintf("%s..%s", good, bad), *line, *save = NULL;
	const char *args[] = { "rev-list", "--reverse", "--first-parent", range, "--", NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = -1, cap = 0;

	*shas = NULL;
	*n = 0;
	if (git_in(g->dir, anc, NULL, &r) < 0) {
		error("--good %.12s is not an ancestor of --bad %.12s in '%s'", good, bad, g->dir);
		goto out;
	}
	spawn_result_release(&r);
	if (git_in(g->dir, args, NULL, &r) < 0) {
		error("git rev-list %s: %s", range, r.err);
		goto out;
	}
	for (line = strtok_r(r.out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			*shas = realloc(*shas, cap * sizeof(**shas));
			if (!*shas)
				abort();
		}
		(*shas)[(*n)++] = xstrdup(line);
	}
	if (!*n) {
		error("no commits between --good %.12s and --bad %.12s", good, bad);
		goto out;
	}
	ret = 0;
out:
	spawn_result_release(&r);
	free(range);
	return ret;
}

int gitsrc_checkout(const struct gitsrc *g, const char *sha, const char *work)
{
	static const char *const init[] = { "init", "-q", ".", NULL };
	static const char *const nogc[] = { "config", "gc.auto", "0", NULL };
	/*
	 * read-tree as reset --hard does: only the files that differ are
	 * written, and it needs nothing of the commit checked out before,
	 * which the user's repository may have dropped since (a rebase, a gc)
	 */
	const char *co[] = { "read-tree", "-u", "--reset", sha, NULL };
	const char *head[] = { "update-ref", "--no-deref", "HEAD", sha, NULL };
	char *gd = xasprintf("%s/.git", work), *alt = NULL, *objs = NULL;
	int ret = -1;

	if (!path_exists(gd)) {
		if (mkdir_p(work, 0755) < 0 || git_checked(work, init, NULL) < 0 ||
		    git_checked(work, nogc, NULL) < 0)
			goto out;
		/* the user's objects, borrowed: nothing is copied, nothing written there */
		alt = xasprintf("%s/objects/info/alternates", gd);
		objs = xasprintf("%s/objects\n", g->git_dir);
		if (write_file_atomic(alt, objs, strlen(objs)) < 0)
			goto out;
	}
	info("build: checking out %.12s into %s", sha, work);
	if (git_checked(work, co, NULL) < 0 || git_checked(work, head, NULL) < 0)
		goto out;
	ret = 0;
out:
	free(objs);
	free(alt);
	free(gd);
	return ret;
}

json_t *gitsrc_json(const struct gitsrc *g, const char *rev, const char *sha)
{
	char *desc = gitsrc_describe(g, sha), *subject = gitsrc_show(g, sha, "%s");
	int dirty = gitsrc_dirty(g);
	json_t *j;

	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "repository", g->dir, "rev", rev,
		      "commit", sha, "describe", desc ? desc : "", "subject",
		      subject ? subject : "", "git_dir", g->git_dir);
	json_object_set_new(j, "dirty", dirty < 0 ? json_null() : json_boolean(dirty));
	free(desc);
	free(subject);
	return j;
}
