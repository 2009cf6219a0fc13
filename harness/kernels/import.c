/* import.c - a kernel the user built, checked and taken into the store without rebuilding */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import.h"
#include "kernel.h"
#include "spawn.h"
#include "util.h"

enum image_kind { IMG_NONE, IMG_BZIMAGE, IMG_ARM64, IMG_ELF_PVH, IMG_ELF };

static const char *const kind_names[] = { "not a kernel image", "an x86 bzImage",
					  "an arm64 Image", "an ELF vmlinux with the PVH note",
					  "an ELF without the PVH note" };

/* the release after "Linux version " in @buf, into @rel */
static void banner_release(const char *buf, size_t len, char *rel, size_t rlen)
{
	static const char banner[] = "Linux version ";
	const char *p = memmem(buf, len, banner, sizeof(banner) - 1);

	if (p) {
		p += sizeof(banner) - 1;
		snprintf(rel, rlen, "%.*s", (int)strcspn(p, " \n"), p);
	}
}

/* what @path is, and the release it names (into @rel, "" when it names none) */
static enum image_kind image_kind(const char *path, char *rel, size_t rlen)
{
	const unsigned char *u;
	enum image_kind k = IMG_NONE;
	char *buf;
	size_t len;

	rel[0] = '\0';
	if (read_file(path, &buf, &len) < 0)
		return IMG_NONE;
	u = (const unsigned char *)buf;
	if (len > 0x400 && u[0x1fe] == 0x55 && u[0x1ff] == 0xaa && !memcmp(buf + 0x202, "HdrS", 4)) {
		/* setup header: kernel_version points at "6.1.192 (user@host) #1 ..." */
		size_t off = 0x200 + (u[0x20e] | u[0x20f] << 8);

		k = IMG_BZIMAGE;
		if (off < len)
			snprintf(rel, rlen, "%.*s", (int)strcspn(buf + off, " "),
				 buf + off);
	} else if (len > 0x40 && !memcmp(buf + 0x38, "ARM\x64", 4)) {
		k = IMG_ARM64;
		banner_release(buf, len, rel, rlen);
	} else if (len > 4 && !memcmp(buf, "\177ELF", 4)) {
		k = kernel_elf_has_pvh_note(path) ? IMG_ELF_PVH : IMG_ELF;
		banner_release(buf, len, rel, rlen);
	}
	free(buf);
	return k;
}

/* the modules of an import, as "relpath size" lines under lib/modules/<release> */
struct modlist {
	struct text t;
	const char *base;
	size_t baselen;
};

static struct modlist *walk_list;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)f;
	if (type == FTW_F && strstr(path + walk_list->baselen, ".ko"))
		text_add(&walk_list->t, "%s %lld\n", path + walk_list->baselen + 1,
			 (long long)st->st_size);
	return 0;
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sort the lines of @t in place (nftw's order is the directory's) */
static void sort_lines(struct text *t)
{
	char **v = NULL, *copy, *l, *save = NULL;
	size_t n = 0, i;
	struct text out = { NULL, 0 };

	if (!t->s)
		return;
	copy = xstrdup(t->s);
	for (l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		v = realloc(v, (n + 1) * sizeof(*v));
		if (!v)
			abort();
		v[n++] = l;
	}
	qsort(v, n, sizeof(*v), cmp_lines);
	text_add(&out, "%s", "");
	for (i = 0; i < n; i++)
		text_add(&out, "%s\n", v[i]);
	free(t->s);
	*t = out;
	free(v);
	free(copy);
}

/* a modules.order entry as the .ko path under @dir and its name under kernel/ */
static char *order_entry(const char *line, char **rel)
{
	const char *p = !strncmp(line, "kernel/", 7) ? line + 7 : line;
	size_t n = strlen(p);

	if (n > 2 && !strcmp(p + n - 2, ".o"))
		n -= 2;
	else if (n > 3 && !strcmp(p + n - 3, ".ko"))
		n -= 3;
	*rel = xasprintf("kernel/%.*s.ko", (int)n, p);
	return xasprintf("%.*s.ko", (int)n, p);
}

/* the .ko files a build directory's modules.order lists: "relpath size" lines */
static int build_modules(const char *dir, struct text *list, int copy_to, const char *dest)
{
	char *order = xasprintf("%s/modules.order", dir), *buf = NULL, *l, *save = NULL;
	int ret = -1;

	if (read_file(order, &buf, NULL) < 0)
		goto out;
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *rel, *src = order_entry(l, &rel), *from = xasprintf("%s/%s", dir, src);
		struct stat st;
		int bad = stat(from, &st) < 0;

		if (bad) {
			error("'%s' lists '%s', which is not built (%s)", order, l, strerror(errno));
		} else if (copy_to) {
			char *to = xasprintf("%s/%s", dest, rel), *slash = strrchr(to, '/');

			*slash = '\0';
			bad = mkdir_p(to, 0755) < 0;
			*slash = '/';
			bad = bad || copy_file(from, to) < 0;
			free(to);
		} else {
			text_add(list, "%s %lld\n", rel, (long long)st.st_size);
		}
		free(rel);
		free(src);
		free(from);
		if (bad)
			goto out;
	}
	ret = 0;
out:
	free(buf);
	free(order);
	return ret;
}

/* a --modules directory: lib/modules/<release> itself, or a root holding it */
static char *modules_dir(const char *given, const char *release)
{
	char *deep = xasprintf("%s/lib/modules/%s", given, release);

	if (path_exists(deep))
		return deep;
	free(deep);
	return xstrdup(given);
}

struct import {
	char *image, *config, *moddir, *sysmap, *from;
	char release[256];
	const char *arch;
	long page_size;
	enum image_kind kind;
	int build_dir;
	int order;		/* modules from the build directory's modules.order */
};

static void import_release(struct import *im)
{
	free(im->image);
	free(im->config);
	free(im->moddir);
	free(im->sysmap);
	free(im->from);
}

/* find and check the files; -2 with the reason on bad input */
static int import_check(const struct import_opts *o, struct import *im)
{
	char *cfg = NULL, rel[256];
	int ret = -2;

	memset(im, 0, sizeof(*im));
	if (o->dir) {
		im->build_dir = 1;
		im->from = realpath(o->dir, NULL);
		if (!im->from)
			return error("import '%s': %s", o->dir, strerror(errno)) - 1;
		im->config = xasprintf("%s/.config", im->from);
		if (!path_exists(im->config))
			return error("import '%s': no .config: not a kernel build directory",
				     o->dir) - 1;
	} else {
		if (!o->image || !o->config)
			return error("import: a build directory, or --image F and --config F") - 1;
		im->from = realpath(o->image, NULL);
		im->config = realpath(o->config, NULL);
		if (!im->from || !im->config)
			return error("import: '%s': %s", im->from ? o->config : o->image,
				     strerror(errno)) - 1;
	}
	if (read_file(im->config, &cfg, NULL) < 0)
		goto out;
	im->arch = kconfig_arch(cfg);
	im->page_size = kconfig_page_size(cfg);
	if (!strcmp(im->arch, "unknown")) {
		error("import: config '%s' is for no architecture kpair runs (x86_64, i386, arm64)",
		      im->config);
		goto out;
	}
	if (o->dir) {
		const char *img = strcmp(im->arch, "arm64") ? "arch/x86/boot/bzImage" :
			"arch/arm64/boot/Image";
		char *relpath = xasprintf("%s/include/config/kernel.release", im->from), *r = NULL;

		im->image = xasprintf("%s/%s", im->from, img);
		if (read_file(relpath, &r, NULL) == 0)
			snprintf(im->release, sizeof(im->release), "%.*s", (int)strcspn(r, "\n"), r);
		free(r);
		free(relpath);
		if (!path_exists(im->image)) {
			error("import '%s': no image %s (is the kernel built? make %s)", o->dir, img,
			      strcmp(im->arch, "arm64") ? "bzImage" : "Image");
			goto out;
		}
		im->sysmap = xasprintf("%s/System.map", im->from);
	} else {
		im->image = xstrdup(im->from);
	}
	im->kind = image_kind(im->image, rel, sizeof(rel));
	if (im->kind == IMG_NONE || im->kind == IMG_ELF) {
		error("import: '%s' is %s: kpair boots a bzImage, an arm64 Image or a PVH vmlinux",
		      im->image, kind_names[im->kind]);
		goto out;
	}
	if ((im->kind == IMG_ARM64) != !strcmp(im->arch, "arm64")) {
		error("import: '%s' is %s but config '%s' is for %s", im->image,
		      kind_names[im->kind], im->config, im->arch);
		goto out;
	}
	if (!im->release[0])
		snprintf(im->release, sizeof(im->release), "%s", rel);
	if (rel[0] && strcmp(rel, im->release)) {
		error("import: image '%s' is release %s, the build directory says %s", im->image,
		      rel, im->release);
		goto out;
	}
	if (o->modules) {
		char *m = realpath(o->modules, NULL);

		if (!m) {
			error("import: --modules '%s': %s", o->modules, strerror(errno));
			goto out;
		}
		im->moddir = modules_dir(m, im->release);
		free(m);
		if (!im->release[0]) {
			const char *slash = strrchr(im->moddir, '/');

			snprintf(im->release, sizeof(im->release), "%s", slash + 1);
		} else if (strcmp(strrchr(im->moddir, '/') + 1, im->release)) {
			error("import: --modules '%s' is not lib/modules/%s of the image's release",
			      o->modules, im->release);
			goto out;
		}
	}
	if (!im->release[0]) {
		error("import: '%s' names no release: give --modules lib/modules/<release>",
		      im->image);
		goto out;
	}
	if (strstr(cfg, "\nCONFIG_MODULES=y\n") && im->build_dir && !im->moddir) {
		char *order = xasprintf("%s/modules.order", im->from);

		im->order = path_exists(order);
		free(order);
		if (!im->order) {
			error("import '%s': the config has modules but none are built (make modules)",
			      o->dir);
			goto out;
		}
	}
	if (strcmp(im->arch, "arm64") && strstr(cfg, "\nCONFIG_VIRTIO_PCI=m\n") &&
	    !strstr(cfg, "\nCONFIG_ACPI=y\n") && !strstr(cfg, "\nCONFIG_PCI_MSI=y\n"))
		warning("import: config '%s' has virtio-pci as a module and neither ACPI nor "
			"PCI_MSI: on q35 it gets no interrupt and the guest finds no virtio-serial "
			"port (enable CONFIG_PCI_MSI)", im->config);
	if (strstr(cfg, "\nCONFIG_MODULES=y\n") && !im->moddir && !im->build_dir)
		warning("import: config '%s' has modules but no --modules was given: the guest "
			"gets only what is built in", im->config);
	ret = 0;
out:
	free(cfg);
	return ret;
}

/* the id: the release and a digest of the image, the config and the modules' names and sizes */
static char *import_id(const struct import *im)
{
	char hi[65], hc[65], hk[65], *in = NULL, *id = NULL;
	struct text t = { NULL, 0 };
	struct modlist ml = { { NULL, 0 }, NULL, 0 };

	if (sha256_file(im->image, hi) < 0 || sha256_file(im->config, hc) < 0)
		return NULL;
	text_add(&t, "kpair-import 1\nimage %s\nconfig %s\n", hi, hc);
	if (im->order && build_modules(im->from, &ml.t, 0, NULL) < 0)
		goto out;
	if (im->moddir) {
		ml.baselen = strlen(im->moddir);
		walk_list = &ml;
		nftw(im->moddir, walk_one, 16, FTW_PHYS);
		walk_list = NULL;
	}
	sort_lines(&ml.t);
	text_add(&t, "%s", ml.t.s ? ml.t.s : "");
	in = xasprintf("%s/images/.import-key-%d", kpair_root(), (int)getpid());
	if (write_file_atomic(in, t.s, t.len) == 0 && sha256_file(in, hk) == 0)
		id = xasprintf("import-%s-%.12s", im->release, hk);
	unlink(in);
out:
	free(in);
	free(t.s);
	free(ml.t.s);
	return id;
}

/* the modules into @tmp/lib/modules/<release>, then depmod there */
static int import_modules(const struct import *im, const char *tmp)
{
	char *dest = xasprintf("%s/lib/modules/%s", tmp, im->release), *dep;
	struct spawn_result r = SPAWN_RESULT_INIT;
	static const char *const extra[] = { "modules.order", "modules.builtin",
					     "modules.builtin.modinfo", NULL };
	int i, ret = -1;

	if (mkdir_p(dest, 0755) < 0)
		goto out;
	if (im->order) {
		if (build_modules(im->from, NULL, 1, dest) < 0)
			goto out;
		for (i = 0; extra[i]; i++) {
			char *from = xasprintf("%s/%s", im->from, extra[i]);
			char *to = xasprintf("%s/%s", dest, extra[i]);
			int bad = path_exists(from) && copy_file(from, to) < 0;

			free(from);
			free(to);
			if (bad)
				goto out;
		}
	} else {
		char *src = xasprintf("%s/.", im->moddir);
		const char *cp[] = { "cp", "-a", "--no-preserve=ownership", src, dest, NULL };

		i = spawn_checked(cp, NULL, 600000, &r);
		free(src);
		spawn_result_release(&r);
		if (i < 0)
			goto out;
		for (i = 0; i < 2; i++) {
			char *l = xasprintf("%s/%s", dest, i ? "source" : "build");

			unlink(l);
			free(l);
		}
	}
	dep = xasprintf("%s/modules.dep", dest);
	if (!path_exists(dep)) {
		const char *dm[] = { "depmod", "-b", tmp, "-F", im->sysmap, im->release, NULL };

		if (!im->sysmap || !path_exists(im->sysmap)) {
			dm[3] = im->release;
			dm[4] = NULL;
		}
		i = spawn_checked(dm, NULL, 300000, &r);
		spawn_result_release(&r);
		if (i < 0) {
			free(dep);
			goto out;
		}
	}
	free(dep);
	ret = 0;
out:
	free(dest);
	return ret;
}

static int import_store(const struct import *im, const char *id, const char *tmp)
{
	const char *img = im->kind == IMG_ELF_PVH ? "vmlinux" : "vmlinuz";
	char *to = xasprintf("%s/%s", tmp, img), *cfg = xasprintf("%s/config", tmp);
	char hi[65], hc[65];
	json_t *j;
	int ret = -1;

	if (copy_file(im->image, to) < 0 || copy_file(im->config, cfg) < 0 ||
	    sha256_file(to, hi) < 0 || sha256_file(cfg, hc) < 0)
		goto out;
	if (im->sysmap && path_exists(im->sysmap)) {
		char *sm = xasprintf("%s/System.map", tmp);
		int bad = copy_file(im->sysmap, sm) < 0;

		free(sm);
		if (bad)
			goto out;
	}
	if ((im->order || im->moddir) && import_modules(im, tmp) < 0)
		goto out;
	j = json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s?}}",
		      "id", id, "release", im->release, "arch", im->arch, "debian_arch", im->arch,
		      "page_size", (json_int_t)im->page_size, "image", img, "source", "type",
		      "import", "path", im->from, "image", im->image, "image_kind",
		      kind_names[im->kind], "image_sha256", hi, "config", im->config,
		      "config_sha256", hc, "modules", im->moddir ? im->moddir :
		      im->order ? "modules.order" : NULL);
	if (im->order || im->moddir)
		json_object_set_new(j, "modules", json_string("lib/modules"));
	ret = kernel_write_json(tmp, j);
	json_decref(j);
out:
	free(to);
	free(cfg);
	return ret;
}

int kernel_import(const struct import_opts *o, char **id)
{
	char *store = kernel_store(), *dir = NULL, *tmp = NULL;
	struct import im;
	struct kernel k;
	int lock = -1, ret;
	double t0 = mono_now();

	*id = NULL;
	kernel_init(&k);
	ret = import_check(o, &im);
	if (ret < 0)
		goto out;
	ret = -1;
	*id = import_id(&im);
	if (!*id || mkdir_p(store, 0755) < 0)
		goto out;
	lock = kernel_store_lock();
	if (lock < 0)
		goto out;
	if (kernel_load(*id, &k) == 0) {
		info("import: %s is cached (the same image, config and modules)", *id);
		ret = 0;
		goto out;
	}
	dir = xasprintf("%s/%s", store, *id);
	tmp = make_temp_dir(store, *id);
	if (!tmp)
		goto out;
	if (import_store(&im, *id, tmp) < 0) {
		rm_rf(tmp);
		goto out;
	}
	if (chmod(tmp, 0755) < 0 || rename(tmp, dir) < 0) {
		error("import: cannot move '%s' to '%s': %s", tmp, dir, strerror(errno));
		rm_rf(tmp);
		goto out;
	}
	info("import: %s (%s, %s, %s) in %.1f s", *id, im.release, im.arch, kind_names[im.kind],
	     mono_now() - t0);
	ret = 0;
out:
	if (ret < 0) {
		free(*id);
		*id = NULL;
	}
	if (lock >= 0)
		close(lock);
	kernel_release(&k);
	import_release(&im);
	free(tmp);
	free(dir);
	free(store);
	return ret;
}

int kernel_import_cmd(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "image", required_argument, NULL, 'i' },
		{ "modules", required_argument, NULL, 'm' },
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct import_opts o = { 0 };
	char *id = NULL;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.image = optarg; break;
		case 'm': o.modules = optarg; break;
		case 'c': o.config = optarg; break;
		default:
			error("kernel import: see kpair help");
			return 2;
		}
	}
	if (optind == argc - 1 && !o.image && !o.config && !o.modules) {
		o.dir = argv[optind];
	} else if (optind != argc || !o.image || !o.config) {
		error("kernel import: expected a build directory, or --image F --config F "
		      "[--modules DIR]");
		return 2;
	}
	ret = kernel_import(&o, &id);
	if (!ret)
		printf("%s\n", id);
	free(id);
	return ret == -2 ? 2 : ret < 0 ? 3 : 0;
}
