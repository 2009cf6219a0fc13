/* build-whole.c - whole .configs, modules, and a built kernel's place in the store */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build-whole.h"
#include "gitsrc.h"
#include "kconfig.h"
#include "kernel.h"
#include "spawn.h"
#include "util.h"

/* a key file a config names that this tree does not have: forced empty (a distro's certs) */
static void key_file_fixes(const struct tree *t, const char *config, struct text *req)
{
	static const char *const keys[] = { "SYSTEM_TRUSTED_KEYS", "SYSTEM_REVOCATION_KEYS", NULL };
	char v[512], *path;
	int i;

	for (i = 0; keys[i]; i++) {
		size_t n;

		if (!kconfig_get(config, keys[i], v, sizeof(v)) || strlen(v) < 3)
			continue;
		n = strlen(v);
		if (v[0] != '"' || v[n - 1] != '"' || !strncmp(v + 1, "pkcs11:", 7))
			continue;
		v[n - 1] = '\0';
		path = v[1] == '/' ? xstrdup(v + 1) : xasprintf("%s/%s", t->src, v + 1);
		if (!path_exists(path))
			text_add(req, "CONFIG_%s=\"\"\n", keys[i]);
		free(path);
	}
}

void build_say_forced(const char *config, const char *target, json_t *forced)
{
	struct text t = { NULL, 0 };
	json_t *f;
	size_t i;

	if (!json_array_size(forced))
		return;
	json_array_foreach(forced, i, f) {
		json_t *was = json_object_get(f, "was");

		text_add(&t, "%s%s=%s (was %s)", i ? ", " : "",
			 json_string_value(json_object_get(f, "option")),
			 json_string_value(json_object_get(f, "now")),
			 json_is_string(was) ? json_string_value(was) : "unset");
	}
	info("build: kpair forced %zu option%s onto config '%s' for target %s: %s",
	     json_array_size(forced), json_array_size(forced) == 1 ? "" : "s", config, target, t.s);
	free(t.s);
}

/*
 * A whole .config: the target's fragment forced on top (what had to change
 * goes to *forced), then olddefconfig; a requirement olddefconfig dropped
 * again is an error naming it.
 */
int configure_whole(const struct tree *t, const struct karch *ka, const char *config,
		    const char *fragment, const char *target, const char *log, json_t **forced)
{
	char *user = NULL, *frag = NULL, *merged = NULL, *final = NULL;
	char *cfg = xasprintf("%s/.config", t->obj);
	struct text req = { NULL, 0 };
	json_t *unmet = NULL;
	int ret = -1;

	*forced = NULL;
	if (read_file(config, &user, NULL) < 0 || read_file(fragment, &frag, NULL) < 0)
		goto out;
	text_add(&req, "%s\n", frag);
	{
		/* configs/kconfig/<target>.whole.config: what only a whole config needs */
		char *wpath = xasprintf("%s/configs/kconfig/%s.whole.config", kpair_root(), target);
		char *w = NULL;

		if (path_exists(wpath) && read_file(wpath, &w, NULL) == 0)
			text_add(&req, "%s\n", w);
		free(w);
		free(wpath);
	}
	key_file_fixes(t, user, &req);
	merged = kconfig_force(user, req.s, forced);
	if (write_file_atomic(cfg, merged, strlen(merged)) < 0)
		goto out;
	if (kmake(t, ka, "olddefconfig", 2, log, 600000) < 0 || read_file(cfg, &final, NULL) < 0)
		goto out;
	unmet = kconfig_unmet(final, req.s);
	if (json_array_size(unmet)) {
		char *list = json_dumps(unmet, JSON_COMPACT);

		error("config '%s': olddefconfig dropped what the target needs: %s (a dependency "
		      "of it is off)", config, list);
		free(list);
		goto out;
	}
	build_say_forced(config, target, *forced);
	ret = 0;
out:
	if (ret < 0) {
		json_decref(*forced);
		*forced = NULL;
	}
	json_decref(unmet);
	free(req.s);
	free(user);
	free(frag);
	free(merged);
	free(final);
	free(cfg);
	return ret;
}

/*
 * make modules_install into the store's temporary directory (depmod runs
 * there, against the build's System.map); the build and source links back
 * into the work tree are dropped
 */
static int install_modules(const struct tree *t, const struct karch *ka, const char *tmp,
			   const char *release, const char *log)
{
	char *var = xasprintf("INSTALL_MOD_PATH=%s", tmp), *link;
	int ret, i;
	static const char *const links[] = { "build", "source" };

	ret = kmake_var(t, ka, "modules_install", var, 2, log, 1800000);
	for (i = 0; !ret && i < 2; i++) {
		link = xasprintf("%s/lib/modules/%s/%s", tmp, release, links[i]);
		unlink(link);
		free(link);
	}
	link = xasprintf("%s/lib/modules/%s/modules.dep", tmp, release);
	if (!ret && !path_exists(link))
		ret = error("make modules_install wrote no modules.dep (is depmod installed?)");
	free(link);
	free(var);
	return ret;
}

int build_install(const struct tree *t, const struct build_spec *spec, const struct karch *ka,
		  const char *id, double secs, const char *log, const char *key, json_t *extra)
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
	if (strstr(cfg, "\nCONFIG_MODULES=y\n") && install_modules(t, ka, tmp, release, log) < 0)
		goto out_rm;
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
		      "image", "vmlinuz", "source", "type", "build", "source",
		      t->kind->where(spec),
		      "version", t->version, "fragment", spec->fragment, "key", key,
		      "patches", patches, "build_s", secs, "log", log);
	patches = NULL;
	if (j)	/* how it was compiled: build_s with a warm ccache is not a build's cost */
		json_object_set_new(json_object_get(j, "source"), "ccache",
				    json_boolean(kmake_uses_ccache()));
	if (j && extra)
		json_object_update(json_object_get(j, "source"), extra);
	if (j && strstr(cfg, "\nCONFIG_MODULES=y\n"))
		json_object_set_new(j, "modules", json_string("lib/modules"));
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

