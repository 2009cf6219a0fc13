/* kernel.c - fetch Debian kernel packages into the kernel store, describe and list them */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "spawn.h"
#include "util.h"

void kernel_init(struct kernel *k)
{
	memset(k, 0, sizeof(*k));
}

void kernel_release(struct kernel *k)
{
	free(k->id);
	free(k->dir);
	free(k->release);
	free(k->arch);
	free(k->image);
	free(k->moddir);
	json_decref(k->json);
	kernel_init(k);
}

char *kernel_store(void)
{
	return xasprintf("%s/images/kernels", kpair_root());
}

static int kconfig_has(const char *config, const char *line)
{
	size_t n = strlen(line);
	const char *p = config;

	while ((p = strstr(p, line))) {
		if ((p == config || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return 1;
		p += n;
	}
	return 0;
}

long kconfig_page_size(const char *config)
{
	if (kconfig_has(config, "CONFIG_ARM64_16K_PAGES=y"))
		return 16384;
	if (kconfig_has(config, "CONFIG_ARM64_64K_PAGES=y") ||
	    kconfig_has(config, "CONFIG_PPC_64K_PAGES=y"))
		return 65536;
	return 4096;
}

const char *kconfig_arch(const char *config)
{
	if (kconfig_has(config, "CONFIG_X86_64=y"))
		return "amd64";
	if (kconfig_has(config, "CONFIG_X86_32=y"))
		return "i386";
	if (kconfig_has(config, "CONFIG_ARM64=y"))
		return "arm64";
	return "unknown";
}

/* known Debian kernel flavours, matched at the end of the release, and their architecture */
const struct kflavour kflavours[] = {
	{ "-cloud-amd64", "amd64" }, { "-rt-amd64", "amd64" }, { "-amd64", "amd64" },
	{ "-686-pae", "i386" }, { "-686", "i386" }, { "-rt-686-pae", "i386" },
	{ "-arm64-16k", "arm64" }, { "-rt-arm64", "arm64" }, { "-cloud-arm64", "arm64" },
	{ "-arm64", "arm64" }, { NULL, NULL }
};

static const struct kflavour *release_flavour(const char *release)
{
	size_t n = strlen(release), i;

	for (i = 0; kflavours[i].flavour; i++) {
		size_t f = strlen(kflavours[i].flavour);

		if (n > f && !strcmp(release + n - f, kflavours[i].flavour))
			return &kflavours[i];
	}
	return NULL;
}

const char *kernel_flavour(const char *release)
{
	const struct kflavour *f = release_flavour(release);

	return f ? f->flavour : NULL;
}

static const char *release_arch(const char *release)
{
	const struct kflavour *f = release_flavour(release);

	return f ? f->arch : NULL;
}

char *kernel_fetch_hint(const char *id, const char *target_default)
{
	const char *rel = kernel_spec_is_package(id) ? id + strlen(KERNEL_PKG_PREFIX) : id;
	size_t n = target_default ? strlen(target_default) : 0, i;

	if (release_arch(rel) || !n)
		return xasprintf("debian:%s", rel);
	/* an ABI without its flavour: the target's default kernel's flavour */
	for (i = 0; kflavours[i].flavour; i++) {
		size_t f = strlen(kflavours[i].flavour);

		if (n > f && !strcmp(target_default + n - f, kflavours[i].flavour))
			return xasprintf("debian:%s%s", rel, target_default + n - f);
	}
	return xasprintf("debian:%s", rel);
}

static int host_arch(char *buf, size_t len)
{
	const char *argv[] = { "dpkg", "--print-architecture", NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = spawn_checked(argv, NULL, 30000, &r);

	if (!ret)
		snprintf(buf, len, "%.*s", (int)strcspn(r.out, "\n"), r.out);
	spawn_result_release(&r);
	return ret;
}

/* a foreign architecture's packages need it added to dpkg, and a fresh index */
static int ensure_foreign_arch(const char *arch)
{
	const char *list[] = { "dpkg", "--print-foreign-architectures", NULL };
	const char *add[] = { "dpkg", "--add-architecture", arch, NULL };
	const char *update[] = { "apt-get", "update", "-qq", NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = -1, have, i;

	if (spawn_checked(list, NULL, 30000, &r) < 0)
		goto out;
	have = strstr(r.out, arch) != NULL;
	spawn_result_release(&r);
	if (have)
		return 0;
	info("kernel: adding dpkg architecture %s and updating the package index", arch);
	if (spawn_checked(add, NULL, 30000, &r) < 0)
		goto out;
	spawn_result_release(&r);
	/* a mirror in the middle of a sync fails an index's hash: it passes a little later */
	for (i = 1; spawn_checked(update, NULL, 600000, &r) < 0; i++) {
		spawn_result_release(&r);
		if (i == 3) {	/* apt used the indexes it got: the download says what is missing */
			warning("kernel: apt-get update failed 3 times: trying the download anyway");
			break;
		}
		warning("kernel: apt-get update failed (attempt %d of 3): again in %d s", i, 20 * i);
		sleep(20 * i);
	}
	ret = 0;
out:
	spawn_result_release(&r);
	return ret;
}

static int find_deb(const char *dir, const char *pkg, char **path)
{
	size_t n = strlen(pkg);
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return error("cannot open '%s': %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, pkg, n) && de->d_name[n] == '_' &&
		    strstr(de->d_name, ".deb")) {
			*path = xasprintf("%s/%s", dir, de->d_name);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return error("apt-get download left no %s_*.deb in '%s'", pkg, dir);
}

static int deb_field(const char *deb, const char *field, char **out)
{
	const char *argv[] = { "dpkg-deb", "-f", deb, field, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = spawn_checked(argv, NULL, 60000, &r);

	if (!ret)
		*out = xasprintf("%.*s", (int)strcspn(r.out, "\n"), r.out);
	spawn_result_release(&r);
	return ret;
}

int kernel_write_json(const char *dir, json_t *j)
{
	char *path = xasprintf("%s/kernel.json", dir);
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
	int ret;

	ret = text ? write_file_atomic(path, text, strlen(text)) : error("cannot encode kernel.json");
	free(text);
	free(path);
	return ret;
}

/* unpack @deb into @tmp and move what a guest needs into place there */
static int unpack_kernel(const char *deb, const char *tmp, const char *release)
{
	char *x = xasprintf("%s/x", tmp);
	const char *xargv[] = { "dpkg-deb", "-x", deb, x, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	struct {
		const char *from, *to;
	} moves[] = {
		{ "boot/vmlinuz-%s", "vmlinuz" },
		{ "boot/config-%s", "config" },
		{ "boot/System.map-%s", "System.map" },
	};
	char *lib = NULL, *libto = NULL;
	size_t i;
	int ret = -1;

	if (spawn_checked(xargv, NULL, 600000, &r) < 0)
		goto out;
	for (i = 0; i < ARRAY_SIZE(moves); i++) {
		char *rel = xasprintf(moves[i].from, release);
		char *from = xasprintf("%s/%s", x, rel);
		char *to = xasprintf("%s/%s", tmp, moves[i].to);
		int bad = rename(from, to) < 0;

		if (bad)
			error("package has no '%s': %s", rel, strerror(errno));
		free(rel);
		free(from);
		free(to);
		if (bad)
			goto out;
	}
	lib = xasprintf("%s/lib", x);
	libto = xasprintf("%s/lib", tmp);
	if (rename(lib, libto) < 0) {
		error("package has no lib/modules: %s", strerror(errno));
		goto out;
	}
	/* the package ships no modules.dep: depmod writes it, as at install time */
	{
		const char *dargv[] = { "depmod", "-b", tmp, release, NULL };

		spawn_result_release(&r);
		if (spawn_checked(dargv, NULL, 300000, &r) < 0)
			goto out;
	}
	ret = rm_rf(x);
out:
	spawn_result_release(&r);
	free(lib);
	free(libto);
	free(x);
	return ret;
}

static int lock_store(const char *store)
{
	char *path = xasprintf("%s/.lock", store);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		error("cannot open lock '%s': %s", path, strerror(errno));
	} else if (flock(fd, LOCK_EX) < 0) {
		error("cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

int kernel_store_lock(void)
{
	char *store = kernel_store();
	int fd = mkdir_p(store, 0755) < 0 ? -1 : lock_store(store);

	free(store);
	return fd;
}

/*
 * debian:latest-<flavour>: the ABI the registry's linux-image-<flavour>
 * depends on today, as a debian:<abi>-<flavour> spec (caller frees)
 */
static char *resolve_latest(const char *spec)
{
	const char *flavour = spec + 7 + 7, *arch = release_arch(spec + 7), *dep, *p;
	char hostarch[32], *pkg = NULL, *out = NULL;
	struct spawn_result r = SPAWN_RESULT_INIT;

	if (!arch || host_arch(hostarch, sizeof(hostarch)) < 0) {
		error("kernel spec '%s': unknown flavour (amd64, 686, 686-pae, arm64, ...)", spec);
		return NULL;
	}
	if (strcmp(arch, hostarch) && ensure_foreign_arch(arch) < 0)
		return NULL;
	pkg = strcmp(arch, hostarch) ? xasprintf("linux-image-%s:%s", flavour, arch) :
		xasprintf("linux-image-%s", flavour);
	{
		const char *argv[] = { "apt-cache", "show", "--no-all-versions", pkg, NULL };

		if (spawn_checked(argv, NULL, 120000, &r) < 0)
			goto out;
	}
	dep = r.out ? strstr(r.out, "\nDepends: ") : NULL;
	p = dep ? strstr(dep, "linux-image-") : NULL;
	if (!p || p > dep + strcspn(dep + 1, "\n") + 1) {
		error("kernel spec '%s': %s depends on no linux-image-<abi>-%s package", spec, pkg,
		      flavour);
		goto out;
	}
	p += strlen("linux-image-");
	out = xasprintf("debian:%.*s", (int)strcspn(p, " ,\n"), p);
	info("kernel: %s is %s today", spec, out);
out:
	spawn_result_release(&r);
	free(pkg);
	return out;
}

int kernel_spec_is_package(const char *spec)
{
	return !strncmp(spec, KERNEL_PKG_PREFIX, strlen(KERNEL_PKG_PREFIX));
}

int kernel_resolve(const char *spec, struct kernel *out)
{
	return kernel_spec_is_package(spec) ? kernel_fetch(spec, out) : kernel_load(spec, out);
}

int kernel_fetch(const char *spec, struct kernel *out)
{
	if (!strncmp(spec, "debian:latest-", 14)) {
		char *resolved = resolve_latest(spec);
		int ret = resolved ? kernel_fetch(resolved, out) : -1;

		free(resolved);
		return ret;
	}
	return kernel_fetch_abi(spec, out);
}

int kernel_fetch_abi(const char *spec, struct kernel *out)
{
	char *store = kernel_store(), *dir = NULL, *tmp = NULL, *pkg = NULL, *pkgarg = NULL;
	char *deb = NULL, *version = NULL, *config = NULL, *cfgpath = NULL, *pool_url = NULL;
	char hostarch[32], deb_sha[65], img_sha[65];
	const char *release, *arch;
	struct spawn_result r = SPAWN_RESULT_INIT;
	int lock = -1, ret = -1;
	json_t *j;

	if (!kernel_spec_is_package(spec) || !spec[strlen(KERNEL_PKG_PREFIX)])
		return free(store), error("kernel spec '%s': expected debian:<abi>-<flavour>, "
					  "e.g. debian:6.1.0-57-amd64", spec);
	release = spec + strlen(KERNEL_PKG_PREFIX);
	if (strspn(release, "0123456789.-+~abcdefghijklmnopqrstuvwxyz") != strlen(release))
		return free(store), error("kernel spec '%s': bad characters", spec);
	/* the flavour ends the release: 6.1.0-57-amd64, 6.12.57+deb13-arm64-16k */
	arch = release_arch(release);
	if (!arch)
		return free(store), error("kernel spec '%s': unknown flavour (amd64, 686, "
					  "686-pae, arm64, arm64-16k, ...)", spec);
	if (mkdir_p(store, 0755) < 0)
		goto out;
	lock = lock_store(store);
	if (lock < 0)
		goto out;
	dir = xasprintf("%s/%s", store, release);
	if (kernel_load(release, out) == 0) {
		info("kernel: %s is cached in %s", release, dir);
		ret = 0;
		goto out;
	}
	if (host_arch(hostarch, sizeof(hostarch)) < 0)
		goto out;
	pkg = xasprintf("linux-image-%s-unsigned", release);
	if (strcmp(arch, hostarch)) {
		if (ensure_foreign_arch(arch) < 0)
			goto out;
		pkgarg = xasprintf("%s:%s", pkg, arch);
	} else {
		pkgarg = xstrdup(pkg);
	}
	tmp = make_temp_dir(store, release);
	if (!tmp)
		goto out;
	info("kernel: apt-get download %s", pkgarg);
	{
		const char *argv[] = { "apt-get", "download", "-q", pkgarg, NULL };
		const char *update[] = { "apt-get", "update", "-qq", NULL };

		/*
		 * an index an interrupted update left without the package: updated, tried
		 * again; an index the mirror serves broken: the pool, beside a sibling
		 */
		if (spawn_checked(argv, tmp, 1800000, &r) < 0) {
			spawn_result_release(&r);
			warning("kernel: apt-get download failed: updating the package index, once");
			if (spawn_checked(update, NULL, 600000, &r) < 0)
				warning("kernel: apt-get update failed: apt keeps the indexes it read");
			spawn_result_release(&r);
			if (spawn_run_in(argv, tmp, 1800000, &r) < 0)
				goto out_rm_tmp;
			if (r.exit_code && pool_fetch(release, pkg, arch, tmp, &pool_url) < 0) {
				error("'apt-get download %s' failed (exit %d): %s", pkgarg,
				      r.exit_code, r.err);
				goto out_rm_tmp;
			}
		}
	}
	if (find_deb(tmp, pkg, &deb) < 0 || deb_field(deb, "Version", &version) < 0 ||
	    sha256_file(deb, deb_sha) < 0)
		goto out_rm_tmp;
	if (unpack_kernel(deb, tmp, release) < 0)
		goto out_rm_tmp;
	unlink(deb);
	cfgpath = xasprintf("%s/config", tmp);
	if (read_file(cfgpath, &config, NULL) < 0)
		goto out_rm_tmp;
	{
		char *img = xasprintf("%s/vmlinuz", tmp);
		int bad = sha256_file(img, img_sha) < 0;

		free(img);
		if (bad)
			goto out_rm_tmp;
	}
	j = json_pack("{s:s, s:s, s:s, s:s, s:I, s:{s:s, s:s, s:s, s:s}, s:s, s:s, s:s}",
		      "id", release, "release", release, "arch", kconfig_arch(config),
		      "debian_arch", arch, "page_size", (json_int_t)kconfig_page_size(config),
		      "source", "type", "debian-package", "package", pkg, "version", version,
		      "sha256", deb_sha, "image", "vmlinuz", "image_sha256", img_sha,
		      "modules", "lib/modules");
	if (j && pool_url)	/* no signed index vouched for it: said so */
		json_object_set_new(json_object_get(j, "source"), "pool_url",
				    json_string(pool_url));
	if (!j) {
		error("cannot build kernel.json");
		goto out_rm_tmp;
	}
	ret = kernel_write_json(tmp, j);
	json_decref(j);
	if (ret < 0)
		goto out_rm_tmp;
	ret = -1;
	if (chmod(tmp, 0755) < 0 || rename(tmp, dir) < 0) {
		error("cannot move '%s' to '%s': %s", tmp, dir, strerror(errno));
		goto out_rm_tmp;
	}
	info("kernel: %s %s (%s) in %s", pkg, version, arch, dir);
	ret = kernel_load(release, out);
	goto out;
out_rm_tmp:
	rm_rf(tmp);
out:
	if (lock >= 0)
		close(lock);
	spawn_result_release(&r);
	free(pool_url);
	free(cfgpath);
	free(config);
	free(version);
	free(deb);
	free(tmp);
	free(pkgarg);
	free(pkg);
	free(dir);
	free(store);
	return ret;
}

int kernel_load(const char *id_or_dir, struct kernel *k)
{
	char *store = kernel_store(), *path;
	const char *id, *release, *arch, *image;
	json_int_t page_size;
	json_error_t jerr;
	int ret = -1;

	kernel_release(k);
	if (strchr(id_or_dir, '/'))
		k->dir = xstrdup(id_or_dir);
	else
		k->dir = xasprintf("%s/%s", store, id_or_dir);
	free(store);
	path = xasprintf("%s/kernel.json", k->dir);
	if (!path_exists(path)) {
		free(path);
		return -1;	/* not there: callers say what to do */
	}
	k->json = json_load_file(path, 0, &jerr);
	if (!k->json) {
		error("%s:%d: %s", path, jerr.line, jerr.text);
		goto out;
	}
	if (json_unpack_ex(k->json, &jerr, 0, "{s:s, s:s, s:s, s:I, s:s}", "id", &id,
			   "release", &release, "arch", &arch, "page_size", &page_size,
			   "image", &image) < 0) {
		error("%s: %s", path, jerr.text);
		goto out;
	}
	k->id = xstrdup(id);
	k->release = xstrdup(release);
	k->arch = xstrdup(arch);
	k->page_size = (long)page_size;
	k->image = xasprintf("%s/%s", k->dir, image);
	k->moddir = xasprintf("%s/lib/modules/%s", k->dir, release);
	if (!path_exists(k->moddir)) {
		free(k->moddir);
		k->moddir = NULL;
	}
	if (!path_exists(k->image)) {
		error("kernel '%s': image '%s' is missing", id, k->image);
		goto out;
	}
	ret = 0;
out:
	free(path);
	if (ret < 0)
		kernel_release(k);
	return ret;
}

int kernel_list(void)
{
	char *store = kernel_store();
	struct dirent **names;
	json_t *rows = json_array(), *r;
	int n, i, w = 2, wt = 6;
	size_t j;

	n = scandir(store, &names, NULL, alphasort);
	if (n < 0) {
		printf("no kernels (fetch one: kpair kernel fetch debian:6.1.0-57-amd64)\n");
		free(store);
		json_decref(rows);
		return 0;
	}
	/* read them all first: the columns are as wide as the longest id and source */
	for (i = 0; i < n; i++) {
		struct kernel k;
		const char *type = "?", *ver = "";

		kernel_init(&k);
		if (names[i]->d_name[0] != '.' && kernel_load(names[i]->d_name, &k) == 0) {
			json_unpack(k.json, "{s:{s?s, s?s}}", "source", "type", &type, "version", &ver);
			if (!*ver)	/* an imported build: its release (make kernelrelease) */
				ver = jget_str(k.json, "release");
			json_array_append_new(rows, json_pack("{s:s, s:s, s:I, s:s, s:s}", "id", k.id,
				"arch", k.arch, "page", (json_int_t)k.page_size, "type", type,
				"version", ver));
			if ((int)strlen(k.id) > w)
				w = (int)strlen(k.id);
			if ((int)strlen(type) > wt)
				wt = (int)strlen(type);
			kernel_release(&k);
		}
		free(names[i]);
	}
	free(names);
	printf("%-*s %-6s %-6s %-*s %s\n", w, "ID", "ARCH", "PAGE", wt, "SOURCE", "VERSION");
	json_array_foreach(rows, j, r)
		printf("%-*s %-6s %-6lld %-*s %s\n", w, jget_str(r, "id"), jget_str(r, "arch"),
		       (long long)json_integer_value(json_object_get(r, "page")), wt,
		       jget_str(r, "type"), jget_str(r, "version"));
	if (!json_array_size(rows))
		printf("(none)\n");
	json_decref(rows);
	free(store);
	return 0;
}
