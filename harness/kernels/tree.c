/* tree.c - the kinds of source tree a build runs in, the kernel architectures, and make */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "spawn.h"
#include "tree.h"
#include "util.h"

static const struct karch karchs[] = {
	{ "amd64", "x86_64", "", "bzImage", "arch/x86/boot/bzImage" },
	{ "i386", "i386", "i686-linux-gnu-", "bzImage", "arch/x86/boot/bzImage" },
	{ "arm64", "arm64", "aarch64-linux-gnu-", "Image", "arch/arm64/boot/Image" },
};

/* the kinds, tried in order: a new one is one file and one line here */
static const struct tree_kind *const kinds[] = { &tree_git, &tree_dir, &tree_package };

const struct karch *karch_find(const char *arch)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(karchs); i++)
		if (!strcmp(karchs[i].target_arch, arch))
			return &karchs[i];
	return NULL;
}

void tree_release(struct tree *t)
{
	if (t->lock >= 0)
		close(t->lock);
	free(t->name);
	free(t->src);
	free(t->work);
	free(t->obj);
	free(t->version);
	memset(t, 0, sizeof(*t));
	t->lock = -1;
}

int tree_open(const struct build_spec *spec, struct tree *t)
{
	char *lock;
	size_t i;

	memset(t, 0, sizeof(*t));
	t->lock = -1;
	for (i = 0; i < ARRAY_SIZE(kinds) && !t->kind; i++)
		if (kinds[i]->match(spec))
			t->kind = kinds[i];
	if (!t->kind)
		return error("--source '%s': a Debian linux-source-X.Y package or a directory",
			     spec->source);
	if (t->kind->open(spec, t) < 0 || mkdir_p(t->obj, 0755) < 0)
		return -1;
	lock = xasprintf("%s/.lock", t->work);
	t->lock = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(lock);
	if (t->lock < 0 || flock(t->lock, LOCK_EX) < 0)
		return error("cannot lock '%s': %s", t->work, strerror(errno));
	return t->kind->ready ? t->kind->ready(spec, t) : 0;
}

int kmake_uses_ccache(void)
{
	static int have = -1;
	const char *off = getenv("KPAIR_CCACHE");

	if (off && !strcmp(off, "0"))
		return 0;
	if (have < 0) {
		const char *argv[] = { "ccache", "--version", NULL };
		struct spawn_result r = SPAWN_RESULT_INIT;

		have = spawn_run(argv, 10000, &r) == 0 && r.exit_code == 0;
		spawn_result_release(&r);
	}
	return have;
}

/*
 * ccache, when it is installed (KPAIR_CCACHE=0 turns it off): every tree's objects in one
 * cache, images/ccache unless CCACHE_DIR names the user's own, with base_dir the directory
 * that holds both the source and the O= directory, so that the same file compiled the same
 * way in another tree (a git revision of the same source, kpair's default build of a second
 * kind of source) is a hit: in images/build every tree is <work>/src beside <work>/obj.
 * Returns "CC=ccache <cross>gcc" (caller frees) or NULL.
 */
static char *ccache_cc(const struct tree *t, const struct karch *ka)
{
	size_t n = 0;

	if (!kmake_uses_ccache())
		return NULL;
	if (!getenv("CCACHE_DIR")) {
		char *dir = xasprintf("%s/images/ccache", kpair_root());

		setenv("CCACHE_DIR", dir, 1);
		free(dir);
	}
	/* depend mode: a miss runs no second preprocessor (ccache's figure: 1-3 % overhead,
	 * not 5-20 %); the kernel's -Wp,-MMD,file is what it needs */
	setenv("CCACHE_DEPEND", "1", 0);
	while (t->src[n] && t->src[n] == t->obj[n])	/* the common parent directory */
		n++;
	while (n && t->src[n - 1] != '/')
		n--;
	if (n > 1 && t->src[0] == '/') {
		char *base = xasprintf("%.*s", (int)(n - 1), t->src);

		setenv("CCACHE_BASEDIR", base, 1);
		free(base);
	} else {
		unsetenv("CCACHE_BASEDIR");
	}
	return xasprintf("CC=ccache %sgcc", ka->cross);
}

int kmake_var(const struct tree *t, const struct karch *ka, const char *what, const char *var,
	      int jobs, const char *log, int timeout_ms)
{
	char *o = xasprintf("O=%s", t->obj), *a = xasprintf("ARCH=%s", ka->arch);
	char *c = xasprintf("CROSS_COMPILE=%s", ka->cross), *j = xasprintf("-j%d", jobs);
	char *cc = ccache_cc(t, ka);
	const char *argv[] = { "make", "-C", t->src, o, a, c, j, cc ? cc : what, cc ? what : var,
			       cc ? var : NULL, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int fd, ret = -1;

	if (spawn_run(argv, timeout_ms, &r) < 0) {
		error("make %s did not finish in %d s (log: %s)", what, timeout_ms / 1000, log);
		goto out;
	}
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dprintf(fd, "$ make %s %s %s %s %s%s%s%s %s\n%s%s\n", o, a, c, j, cc ? "'" : "",
			cc ? cc : "", cc ? "' " : "", what, var ? var : "", r.out, r.err);
		close(fd);
	}
	if (r.exit_code) {
		char *e = strstr(r.err, "error:");
		char *line = e ? e : r.err;

		while (e && line > r.err && line[-1] != '\n')
			line--;
		error("make %s failed: %.*s (log: %s)", what, (int)strcspn(line, "\n"), line, log);
		goto out;
	}
	ret = 0;
out:
	spawn_result_release(&r);
	free(cc);
	free(o);
	free(a);
	free(c);
	free(j);
	return ret;
}

int kmake(const struct tree *t, const struct karch *ka, const char *what, int jobs,
	  const char *log, int timeout_ms)
{
	return kmake_var(t, ka, what, NULL, jobs, log, timeout_ms);
}

