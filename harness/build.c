/* build.c - kernels from source: unpack, configure, patch, build, install into the store */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build.h"
#include "source.h"
#include "config.h"
#include "kernel.h"
#include "spawn.h"
#include "util.h"

#define BUILD_TIMEOUT_MS (3 * 3600 * 1000)

struct tree {
	char *name;		/* for ids: linux-source-6.1, or the directory's base name */
	char *src;		/* the source tree */
	char *work;		/* images/build/<name>-<target> */
	char *obj;		/* work/obj: the O= directory */
	char *version;		/* VERSION.PATCHLEVEL.SUBLEVEL, plus the package version */
	int lock;
};

struct karch {
	const char *target_arch;	/* Debian arch of the target file */
	const char *arch;		/* kernel ARCH= */
	const char *cross;		/* CROSS_COMPILE= */
	const char *image;		/* make target and its path under obj */
	const char *image_path;
};

static const struct karch karchs[] = {
	{ "amd64", "x86_64", "", "bzImage", "arch/x86/boot/bzImage" },
	{ "i386", "i386", "i686-linux-gnu-", "bzImage", "arch/x86/boot/bzImage" },
	{ "arm64", "arm64", "aarch64-linux-gnu-", "Image", "arch/arm64/boot/Image" },
};

static void tree_release(struct tree *t)
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

static int tree_open(const struct build_spec *spec, struct tree *t)
{
	const char *base;
	char *pkgver = NULL, *lock, *mv;

	memset(t, 0, sizeof(*t));
	t->lock = -1;
	if (strchr(spec->source, '/')) {
		base = strrchr(spec->source, '/')[1] ? strrchr(spec->source, '/') + 1 : spec->source;
		t->name = xstrdup(base);
		t->src = xstrdup(spec->source);
	} else if (!strncmp(spec->source, "linux-source-", 13)) {
		t->name = xstrdup(spec->source);
	} else {
		return error("--source '%s': a Debian linux-source-X.Y package or a directory",
			     spec->source);
	}
	t->work = xasprintf("%s/images/build/%s-%s", kpair_root(), t->name, spec->target);
	t->obj = xasprintf("%s/obj", t->work);
	if (!t->src)
		t->src = xasprintf("%s/src", t->work);
	if (mkdir_p(t->obj, 0755) < 0)
		return -1;
	lock = xasprintf("%s/.lock", t->work);
	t->lock = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	free(lock);
	if (t->lock < 0 || flock(t->lock, LOCK_EX) < 0)
		return error("cannot lock '%s': %s", t->work, strerror(errno));
	if (!strchr(spec->source, '/') && source_unpack_package(spec->source, t->work, t->src, &pkgver) < 0)
		return -1;
	mv = source_version(t->src);
	if (!mv) {
		free(pkgver);
		return -1;
	}
	t->version = pkgver ? xasprintf("%s (%s %s)", mv, spec->source, pkgver) : xstrdup(mv);
	free(mv);
	free(pkgver);
	return 0;
}

/* patches applied to the tree, one path a line, so an interrupted build can undo them */
static char *applied_path(const struct tree *t)
{
	return xasprintf("%s/applied-patches", t->work);
}

static int patch_run(const struct tree *t, const char *patch, int reverse, int dry,
		     struct spawn_result *r)
{
	const char *argv[] = { "patch", "-p1", "--batch", "--forward", "-d", t->src, "-i", patch,
			       NULL, NULL, NULL };
	int n = 8;

	if (reverse)
		argv[3] = "-R";
	if (dry)
		argv[n++] = "--dry-run";
	argv[n++] = "--quiet";
	return spawn_run(argv, 120000, r);
}

static int revert_applied(const struct tree *t)
{
	char *path = applied_path(t), *buf = NULL, *lines[BUILD_MAX_PATCHES], *save = NULL, *l;
	struct spawn_result r = SPAWN_RESULT_INIT;
	int n = 0, ret = 0;

	if (!path_exists(path) || read_file(path, &buf, NULL) < 0)
		goto out;
	for (l = strtok_r(buf, "\n", &save); l && n < BUILD_MAX_PATCHES; l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	while (n-- > 0) {
		if (patch_run(t, lines[n], 1, 0, &r) < 0 || r.exit_code) {
			ret = error("cannot take patch '%s' back out of '%s': %s", lines[n], t->src,
				    r.out ? r.out : "");
			spawn_result_release(&r);
			goto out;
		}
		spawn_result_release(&r);
	}
	unlink(path);
out:
	free(buf);
	free(path);
	return ret;
}

static int apply_patches(const struct tree *t, const struct build_spec *spec)
{
	struct spawn_result r = SPAWN_RESULT_INIT;
	char *path = applied_path(t), *list = xstrdup("");
	int i, ret = -1;

	/* each is tried (--dry-run) on the tree as the ones before it left it */
	for (i = 0; i < spec->npatches; i++) {
		char *nl;

		if (patch_run(t, spec->patches[i], 0, 1, &r) < 0 || r.exit_code) {
			error("patch '%s' does not apply to %s: %.300s", spec->patches[i], t->version,
			      r.out && *r.out ? r.out : r.err);
			goto out;
		}
		spawn_result_release(&r);
		if (patch_run(t, spec->patches[i], 0, 0, &r) < 0 || r.exit_code) {
			error("patch '%s' failed: %.300s", spec->patches[i], r.out ? r.out : "");
			goto out;
		}
		spawn_result_release(&r);
		nl = xasprintf("%s%s\n", list, spec->patches[i]);
		free(list);
		list = nl;
		if (write_file_atomic(path, list, strlen(list)) < 0)
			goto out;
	}
	ret = 0;
out:
	spawn_result_release(&r);
	free(list);
	free(path);
	return ret;
}

static int kmake(const struct tree *t, const struct karch *ka, const char *what, int jobs,
		 const char *log, int timeout_ms)
{
	char *o = xasprintf("O=%s", t->obj), *a = xasprintf("ARCH=%s", ka->arch);
	char *c = xasprintf("CROSS_COMPILE=%s", ka->cross), *j = xasprintf("-j%d", jobs);
	const char *argv[] = { "make", "-C", t->src, o, a, c, j, what, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int fd, ret = -1;

	if (spawn_run(argv, timeout_ms, &r) < 0) {
		error("make %s did not finish in %d s (log: %s)", what, timeout_ms / 1000, log);
		goto out;
	}
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dprintf(fd, "$ make %s %s %s %s %s\n%s%s\n", o, a, c, j, what, r.out, r.err);
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
	free(o);
	free(a);
	free(c);
	free(j);
	return ret;
}

/* tinyconfig, then the fragment merged onto it, then olddefconfig; warns of dropped options */
static int configure(const struct tree *t, const struct karch *ka, const char *fragment,
		     const char *log)
{
	char *merge = xasprintf("%s/scripts/kconfig/merge_config.sh", t->src);
	char *cfg = xasprintf("%s/.config", t->obj), *frag = NULL, *final = NULL, *line, *save = NULL;
	const char *margv[] = { merge, "-m", "-O", t->obj, cfg, fragment, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = -1;

	if (read_file(fragment, &frag, NULL) < 0)
		goto out;
	if (kmake(t, ka, "tinyconfig", 2, log, 600000) < 0)
		goto out;
	if (spawn_checked(margv, t->src, 120000, &r) < 0)
		goto out;
	if (kmake(t, ka, "olddefconfig", 2, log, 600000) < 0)
		goto out;
	if (read_file(cfg, &final, NULL) < 0)
		goto out;
	for (line = strtok_r(frag, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *want;

		if (strncmp(line, "CONFIG_", 7))
			continue;
		want = xasprintf("\n%s\n", line);
		if (!strstr(final, want))
			warning("%s: '%s' did not survive olddefconfig (a dependency is missing)",
				fragment, line);
		free(want);
	}
	ret = 0;
out:
	spawn_result_release(&r);
	free(frag);
	free(final);
	free(cfg);
	free(merge);
	return ret;
}

/* @text (consumed) with every patch's text appended, in order; NULL on error */
static char *with_patches(char *text, const struct build_spec *spec)
{
	int i;

	for (i = 0; text && i < spec->npatches; i++) {
		char *p, *n = NULL;

		if (read_file(spec->patches[i], &p, NULL) == 0) {
			n = xasprintf("%s\npatch %d\n%s", text, i, p);
			free(p);
		}
		free(text);
		text = n;
	}
	return text;
}

/* sha256 of what decides the artifact: source version, merged config, ordered patches */
static int build_key(const struct tree *t, const struct build_spec *spec, char hex[65])
{
	char *in = xasprintf("%s/key-input", t->work), *cfgpath = xasprintf("%s/.config", t->obj);
	char *text = NULL, *cfg = NULL;
	int ret = -1;

	if (read_file(cfgpath, &cfg, NULL) < 0)
		goto out;
	text = with_patches(xasprintf("kpair-build 1\nsource %s\ntarget %s\n%s", t->version,
					spec->target, cfg), spec);
	if (!text)
		goto out;
	if (write_file_atomic(in, text, strlen(text)) < 0 || sha256_file(in, hex) < 0)
		goto out;
	ret = 0;
out:
	unlink(in);
	free(text);
	free(cfg);
	free(cfgpath);
	free(in);
	return ret;
}

/*
 * The inputs of a build before configuring (source version, target, the
 * fragment's text, the patches' text) map to the id their configured build
 * got, so a repeated build is a cache hit without running kconfig again.
 */
static char *prekey_path(const struct tree *t, const struct build_spec *spec, const char *frag)
{
	char *in = xasprintf("%s/prekey-input", t->work), *text, *f = NULL, *out = NULL;
	char hex[65];

	if (read_file(frag, &f, NULL) < 0)
		goto out;
	text = with_patches(xasprintf("kpair-prekey 1\nsource %s\ntarget %s\n%s", t->version,
					spec->target, f), spec);
	if (text && write_file_atomic(in, text, strlen(text)) == 0 && sha256_file(in, hex) == 0)
		out = xasprintf("%s/prekeys/%s", t->work, hex);
	free(text);
out:
	unlink(in);
	free(in);
	free(f);
	return out;
}

static int install(const struct tree *t, const struct build_spec *spec, const struct karch *ka,
		   const char *id, double secs, const char *log, const char *key)
{
	char *store = kernel_store(), *dir = xasprintf("%s/%s", store, id);
	char *tmp = NULL, *release = NULL, *cfg = NULL;
	struct {
		const char *from, *to;
	} files[] = { { ka->image_path, "vmlinuz" }, { "vmlinux", "vmlinux" }, { ".config", "config" },
		      { "System.map", "System.map" }, { "include/config/kernel.release", "release" } };
	json_t *patches = json_array(), *j;
	size_t i;
	int ret = -1;

	tmp = make_temp_dir(store, id);	/* the caller holds the store lock */
	if (!tmp)
		goto out;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		char *from = xasprintf("%s/%s", t->obj, files[i].from);
		char *to = xasprintf("%s/%s", tmp, files[i].to);
		int bad = copy_file(from, to) < 0;

		free(from);
		free(to);
		if (bad && strcmp(files[i].to, "vmlinux"))
			goto out_rm;
	}
	{
		char *rp = xasprintf("%s/release", tmp), *cp = xasprintf("%s/config", tmp);

		if (read_file(rp, &release, NULL) < 0 || read_file(cp, &cfg, NULL) < 0) {
			free(rp);
			free(cp);
			goto out_rm;
		}
		free(rp);
		free(cp);
		release[strcspn(release, "\n")] = '\0';
	}
	for (i = 0; i < (size_t)spec->npatches; i++) {
		char hex[65];

		if (sha256_file(spec->patches[i], hex) < 0)
			goto out_rm;
		json_array_append_new(patches, json_pack("{s:s, s:s}", "file", spec->patches[i],
							 "sha256", hex));
	}
	j = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:o, s:f, s:s}}",
		      "id", id, "release", release, "arch", kconfig_arch(cfg), "debian_arch",
		      ka->target_arch, "page_size", (json_int_t)kconfig_page_size(cfg),
		      "image", "vmlinuz", "source", "type", "build", "source", spec->source,
		      "version", t->version, "fragment", spec->fragment, "key", key,
		      "patches", patches, "build_s", secs, "log", log);
	patches = NULL;
	if (!j || kernel_write_json(tmp, j) < 0) {
		json_decref(j);
		goto out_rm;
	}
	json_decref(j);
	if (chmod(tmp, 0755) < 0 || rename(tmp, dir) < 0) {
		error("cannot move '%s' to '%s': %s", tmp, dir, strerror(errno));
		goto out_rm;
	}
	ret = 0;
	goto out;
out_rm:
	rm_rf(tmp);
out:
	json_decref(patches);
	free(release);
	free(cfg);
	free(tmp);
	free(dir);
	free(store);
	return ret;
}

int kernel_build(const struct build_spec *spec, char **id)
{
	const struct karch *ka = NULL;
	struct target target;
	struct tree t = { .lock = -1 };
	char key[65], *log = NULL, *frag = NULL, *kj = NULL, *pre = NULL;
	struct kernel k;
	double t0;
	size_t i;
	int ret = -1;

	target_init(&target);
	kernel_init(&k);
	*id = NULL;
	if (target_load(&target, spec->target) < 0)
		goto out;
	for (i = 0; i < ARRAY_SIZE(karchs); i++)
		if (!strcmp(karchs[i].target_arch, target.arch))
			ka = &karchs[i];
	if (!ka) {
		error("target '%s': no kernel build for architecture '%s'", target.name, target.arch);
		goto out;
	}
	frag = spec->fragment ? xstrdup(spec->fragment) :
		xasprintf("%s/configs/kconfig/%s.config", kpair_root(), target.name);
	if (!path_exists(frag)) {
		error("config fragment '%s' does not exist", frag);
		goto out;
	}
	for (i = 0; i < (size_t)spec->npatches; i++)
		if (!path_exists(spec->patches[i])) {
			error("patch '%s' does not exist", spec->patches[i]);
			goto out;
		}
	if (tree_open(spec, &t) < 0)
		goto out;
	if (revert_applied(&t) < 0)	/* an interrupted build left patches in */
		goto out;
	log = xasprintf("%s/build.log", t.work);
	pre = prekey_path(&t, spec, frag);
	if (pre && path_exists(pre)) {
		char *cached = NULL;

		if (read_file(pre, &cached, NULL) == 0) {
			cached[strcspn(cached, "\n")] = '\0';
			if (kernel_load(cached, &k) == 0) {
				info("build: %s is cached", cached);
				*id = cached;
				ret = 0;
				goto out;
			}
			free(cached);
		}
	}
	/* patches first: one that does not apply stops everything before any build step */
	if (apply_patches(&t, spec) < 0)
		goto out_revert;
	{
		struct build_spec s2 = *spec;

		s2.fragment = frag;
		if (configure(&t, ka, frag, log) < 0 || build_key(&t, &s2, key) < 0)
			goto out_revert;
	}
	*id = xasprintf("%s-%s-%.12s", t.name, target.name, key);
	{
		char *store = kernel_store();

		kj = xasprintf("%s/%s/kernel.json", store, *id);
		free(store);
	}
	if (path_exists(kj) && kernel_load(*id, &k) == 0) {
		info("build: %s is cached", *id);
		ret = 0;
		goto out_prekey;
	}
	info("build: %s (%s, %d patch%s) in %s", *id, t.version, spec->npatches,
	     spec->npatches == 1 ? "" : "es", t.obj);
	t0 = mono_now();
	if (kmake(&t, ka, ka->image, spec->jobs > 0 ? spec->jobs : 2, log, BUILD_TIMEOUT_MS) < 0)
		goto out_revert;
	{
		struct build_spec s2 = *spec;
		int lock = kernel_store_lock();

		s2.fragment = frag;
		ret = install(&t, &s2, ka, *id, mono_now() - t0, log, key);
		if (lock >= 0)
			close(lock);
	}
	if (!ret)
		info("build: %s built in %.1f s", *id, mono_now() - t0);
out_prekey:
	if (!ret && pre) {
		char *d = xasprintf("%s/prekeys", t.work);

		if (mkdir_p(d, 0755) == 0)
			write_file_atomic(pre, *id, strlen(*id));
		free(d);
	}
out_revert:
	if (revert_applied(&t) < 0)
		ret = -1;
out:
	if (ret < 0) {
		free(*id);
		*id = NULL;
	}
	kernel_release(&k);
	target_release(&target);
	tree_release(&t);
	free(pre);
	free(kj);
	free(frag);
	free(log);
	return ret;
}
