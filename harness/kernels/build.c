/* build.c - kernels from source: unpack, configure, patch, build, install into the store */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

#include "build.h"
#include "build-whole.h"
#include "source.h"
#include "config.h"
#include "gitsrc.h"
#include "kconfig.h"
#include "kernel.h"
#include "spawn.h"
#include "util.h"

#define BUILD_TIMEOUT_MS (3 * 3600 * 1000)

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

/*
 * The fragment a build merges (or forces onto a whole config): the user's
 * --fragment, else the target's plus, for tinyconfig, configs/kconfig/
 * workloads.config (what the shipped workloads need, so that kpair's default
 * build runs every one of them); then the job's own needs. Written to
 * <work>/fragment; returns its path (caller frees) or NULL.
 */
static char *effective_fragment(const struct tree *t, const struct build_spec *spec,
				const char *base)
{
	char *wpath = xasprintf("%s/configs/kconfig/workloads.config", kpair_root());
	char *path = xasprintf("%s/fragment", t->work), *text = NULL, *w = NULL, *all;
	int ok = read_file(base, &text, NULL) == 0;

	if (ok && !spec->fragment && !spec->config)
		ok = read_file(wpath, &w, NULL) == 0;
	all = ok ? xasprintf("%s\n%s\n%s%s", text, w ? w : "", spec->needs ?
			     "# the job's own needs (harness/kernels/kneeds.c)\n" : "",
			     spec->needs ? spec->needs : "") : NULL;
	if (!all || write_file_atomic(path, all, strlen(all)) < 0) {
		free(path);
		path = NULL;
	}
	free(all);
	free(w);
	free(text);
	free(wpath);
	return path;
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
	char *in = xasprintf("%s/prekey-input", t->work), *text, *f = NULL, *out = NULL, *w = NULL;
	char hex[65];

	if (read_file(frag, &f, NULL) < 0)
		goto out;
	if (spec->config) {
		/* a whole config: its text and what kpair forces on it besides the fragment */
		char *wpath = xasprintf("%s/configs/kconfig/%s.whole.config", kpair_root(),
					spec->target), *extra = NULL, *user = NULL;
		int bad = read_file(spec->config, &user, NULL) < 0 ||
			(path_exists(wpath) && read_file(wpath, &extra, NULL) < 0);

		w = bad ? NULL : xasprintf("\nwhole config\n%s\nwhole extra\n%s", user,
					   extra ? extra : "");
		free(wpath);
		free(extra);
		free(user);
		if (bad)
			goto out;
	}
	text = with_patches(xasprintf("kpair-prekey 2\nsource %s\ntarget %s\n%s%s", t->version,
					spec->target, f, w ? w : ""), spec);
	if (text && write_file_atomic(in, text, strlen(text)) == 0 && sha256_file(in, hex) == 0)
		out = xasprintf("%s/prekeys/%s", t->work, hex);
	free(text);
out:
	unlink(in);
	free(in);
	free(f);
	free(w);
	return out;
}

int build_config_fits(const char *config, const char *target_name)
{
	struct target target;
	char *text = NULL;
	const char *arch;
	int ret = -1;

	target_init(&target);
	if (target_load(&target, target_name) < 0 || read_file(config, &text, NULL) < 0)
		goto out;
	arch = kconfig_arch(text);
	if (!strstr(text, "\nCONFIG_") && strncmp(text, "CONFIG_", 7))
		error("config '%s' has no CONFIG_ line: not a kernel .config", config);
	else if (strcmp(arch, target.arch))
		error("config '%s' is for architecture '%s', target '%s' wants '%s'", config, arch,
		      target.name, target.arch);
	else
		ret = 0;
out:
	free(text);
	target_release(&target);
	return ret;
}

/* the last @n lines of @path (caller frees) */
static char *log_tail(const char *path, int n)
{
	char *buf = NULL, *p, *out;

	if (read_file(path, &buf, NULL) < 0)
		return xstrdup("");
	p = buf + strlen(buf);
	while (p > buf && p[-1] == '\n')
		*--p = '\0';
	while (p > buf && n > 0)
		if (*--p == '\n')
			n--;
	out = xstrdup(p + (*p == '\n'));
	free(buf);
	return out;
}

/* a cached build of a whole config says what kpair forced onto it, as the build did */
static void say_cached_forced(const struct build_spec *spec, const struct kernel *k)
{
	json_t *forced = json_object_get(json_object_get(json_object_get(k->json, "source"),
							 "config"), "forced");

	if (spec->config)
		build_say_forced(spec->config, spec->target, forced);
}

/* the image, then the modules when the config has them; a failure names the revision */
static int build_image_and_modules(const struct tree *t, const struct karch *ka,
				   const struct build_spec *spec, const char *log)
{
	char *cfgpath = xasprintf("%s/.config", t->obj), *cfg = NULL, *tail;
	int jobs = spec->jobs > 0 ? spec->jobs : 2, ret;

	ret = read_file(cfgpath, &cfg, NULL);
	if (!ret)
		ret = kmake(t, ka, ka->image, jobs, log, BUILD_TIMEOUT_MS);
	if (!ret && strstr(cfg, "\nCONFIG_MODULES=y\n"))
		ret = kmake(t, ka, "modules", jobs, log, BUILD_TIMEOUT_MS);
	if (ret < 0 && t->kind->failed) {
		char *what = t->kind->failed(spec);

		tail = log_tail(log, 15);
		error("the build of %s failed; the last lines of %s:\n%s", what, log, tail);
		free(tail);
		free(what);
	}
	free(cfg);
	free(cfgpath);
	return ret;
}

int kernel_build(const struct build_spec *spec, char **id)
{
	const struct karch *ka = NULL;
	struct target target;
	struct tree t = { .lock = -1 };
	char key[65], *log = NULL, *frag = NULL, *eff = NULL, *kj = NULL, *pre = NULL;
	json_t *forced = NULL;
	struct kernel k;
	double t0;
	size_t i;
	int ret = -1;

	target_init(&target);
	kernel_init(&k);
	*id = NULL;
	if (target_load(&target, spec->target) < 0)
		goto out;
	ka = karch_find(target.arch);
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
	if (spec->config && build_config_fits(spec->config, spec->target) < 0)
		goto out;
	if (tree_open(spec, &t) < 0)
		goto out;
	if (revert_applied(&t) < 0)	/* an interrupted build left patches in */
		goto out;
	eff = effective_fragment(&t, spec, frag);
	if (!eff)
		goto out;
	log = xasprintf("%s/build.log", t.work);
	pre = spec->config_only ? NULL : prekey_path(&t, spec, eff);
	if (pre && path_exists(pre)) {
		char *cached = NULL;

		if (read_file(pre, &cached, NULL) == 0) {
			cached[strcspn(cached, "\n")] = '\0';
			if (kernel_load(cached, &k) == 0) {
				info("build: %s is cached", cached);
				say_cached_forced(spec, &k);
				*id = cached;
				ret = 0;
				goto out;
			}
			free(cached);
		}
	}
	if (t.kind->prepare && t.kind->prepare(spec, &t) < 0)
		goto out;
	/* patches first: one that does not apply stops everything before any build step */
	if (apply_patches(&t, spec) < 0)
		goto out_revert;
	{
		struct build_spec s2 = *spec;

		s2.fragment = frag;
		if ((spec->config ? configure_whole(&t, ka, spec->config, eff, target.name, log,
					       &forced) :
		     configure(&t, ka, eff, log)) < 0 || build_key(&t, &s2, key) < 0)
			goto out_revert;
	}
	if (spec->config_only) {
		printf("config %s/.config (%zu option%s forced)\n", t.obj, json_array_size(forced),
		       json_array_size(forced) == 1 ? "" : "s");
		ret = 0;
		goto out_revert;
	}
	*id = t.kind->id(spec, &t, target.name, key);
	{
		char *store = kernel_store();

		kj = xasprintf("%s/%s/kernel.json", store, *id);
		free(store);
	}
	if (path_exists(kj) && kernel_load(*id, &k) == 0) {
		info("build: %s is cached", *id);
		say_cached_forced(spec, &k);
		ret = 0;
		goto out_prekey;
	}
	info("build: %s (%s, %d patch%s) in %s", *id, t.version, spec->npatches,
	     spec->npatches == 1 ? "" : "es", t.obj);
	t0 = mono_now();
	if (build_image_and_modules(&t, ka, spec, log) < 0)
		goto out_revert;
	{
		struct build_spec s2 = *spec;
		int lock = kernel_store_lock();
		json_t *extra = json_pack("{s:{s:s, s:s?, s:O?, s:s?}}", "config", "kind",
					  spec->config ? "whole" : "fragment", "file", spec->config,
					  "forced", forced, "job_needs", spec->needs);

		if (t.kind->record)
			t.kind->record(spec, extra);
		s2.fragment = frag;
		ret = build_install(&t, &s2, ka, *id, mono_now() - t0, log, key, extra);
		json_decref(extra);
		if (lock >= 0)
			close(lock);
	}
	if (!ret)
		info("build: %s built in %.1f s%s", *id, mono_now() - t0,
		     kmake_uses_ccache() ? " (through ccache)" : "");
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
	json_decref(forced);
	kernel_release(&k);
	target_release(&target);
	tree_release(&t);
	free(pre);
	free(kj);
	free(frag);
	free(eff);
	free(log);
	return ret;
}
