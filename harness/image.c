/* image.c - initramfs (libarchive newc cpio) with modules from modules.dep, and scratch disks */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "image.h"
#include "spawn.h"
#include "util.h"

void modlist_init(struct modlist *m)
{
	memset(m, 0, sizeof(*m));
}

void modlist_release(struct modlist *m)
{
	int i;

	for (i = 0; i < m->n; i++) {
		free(m->path[i]);
		free(m->args[i]);
	}
	modlist_init(m);
}

/* module name of a modules.dep path: kernel/fs/ext4/ext4.ko.xz -> ext4, '-' as '_' */
static void mod_name(const char *path, size_t len, char *out, size_t outlen)
{
	const char *base = path, *p;
	size_t n, i;

	for (p = path; p < path + len; p++)
		if (*p == '/')
			base = p + 1;
	n = path + len - base;
	for (p = base; p < path + len; p++)
		if (*p == '.') {
			n = p - base;
			break;
		}
	if (n >= outlen)
		n = outlen - 1;
	for (i = 0; i < n; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	out[n] = '\0';
}

int modlist_set_args(struct modlist *m, const char *name, const char *args)
{
	char n[64], want[64];
	int i;

	mod_name(name, strlen(name), want, sizeof(want));
	for (i = 0; i < m->n; i++) {
		mod_name(m->path[i], strlen(m->path[i]), n, sizeof(n));
		if (strcmp(n, want))
			continue;
		free(m->args[i]);
		m->args[i] = xstrdup(args);
		return 1;
	}
	return 0;
}

static void norm_name(const char *in, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < outlen; i++)
		out[i] = in[i] == '-' ? '_' : in[i];
	out[i] = '\0';
}

/* the modules.dep line whose module is @name, or NULL; *len gets the line length */
static const char *dep_line(const char *text, const char *name, size_t *len)
{
	const char *p = text;

	while (p && *p) {
		const char *eol = strchr(p, '\n'), *colon;
		char n[128];

		if (!eol)
			eol = p + strlen(p);
		colon = memchr(p, ':', eol - p);
		if (colon) {
			mod_name(p, colon - p, n, sizeof(n));
			if (!strcmp(n, name)) {
				*len = eol - p;
				return p;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	return NULL;
}

static int is_builtin(const char *builtin, const char *name)
{
	const char *p = builtin;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		char n[128];

		if (!eol)
			eol = p + strlen(p);
		mod_name(p, eol - p, n, sizeof(n));
		if (!strcmp(n, name))
			return 1;
		p = *eol ? eol + 1 : eol;
	}
	return 0;
}

static int modlist_has(const struct modlist *m, const char *path, size_t len)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (strlen(m->path[i]) == len && !strncmp(m->path[i], path, len))
			return 1;
	return 0;
}

static int resolve_one(const char *dep, const char *builtin, const char *name,
		       struct modlist *out, int depth)
{
	const char *line, *colon, *p, *end;
	size_t len;

	if (depth > 32)
		return error("modules.dep: dependency loop through '%s'", name);
	line = dep_line(dep, name, &len);
	if (!line) {
		if (builtin && is_builtin(builtin, name))
			return 0;
		return error("module '%s' is not in modules.dep", name);
	}
	colon = memchr(line, ':', len);
	end = line + len;
	if (modlist_has(out, line, colon - line))
		return 0;
	/* dependencies first, each with its own dependencies before it */
	for (p = colon + 1; p < end;) {
		const char *q;
		char n[128];

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (q = p; q < end && *q != ' ' && *q != '\t'; q++)
			;
		if (q > p) {
			mod_name(p, q - p, n, sizeof(n));
			if (resolve_one(dep, builtin, n, out, depth + 1) < 0)
				return -1;
		}
		p = q;
	}
	if (modlist_has(out, line, colon - line))
		return 0;
	if (out->n >= MODLIST_MAX)
		return error("more than %d modules to load", MODLIST_MAX);
	out->path[out->n++] = xasprintf("%.*s", (int)(colon - line), line);
	return 0;
}

int modules_resolve(const char *dep_text, const char *builtin_text,
		    const char *const *names, int nnames, struct modlist *out)
{
	int i;

	for (i = 0; i < nnames; i++) {
		char n[128];

		norm_name(names[i], n, sizeof(n));
		if (resolve_one(dep_text, builtin_text, n, out, 0) < 0)
			return -1;
	}
	return 0;
}

static int ar_fail(struct archive *a, const char *path)
{
	int e = archive_errno(a);

	/* libarchive's text for a failed write is "Write error": say which */
	if (e > 0 && !strstr(archive_error_string(a), strerror(e)))
		return error("cannot write initramfs '%s': %s: %s", path, archive_error_string(a),
			     strerror(e));
	return error("cannot write initramfs '%s': %s", path, archive_error_string(a));
}

static int ar_add(struct archive *a, const char *path, const char *name, mode_t mode,
		  const void *data, size_t len, dev_t rdev)
{
	struct archive_entry *e = archive_entry_new();
	int ret = 0;

	archive_entry_set_pathname(e, name);
	archive_entry_set_mode(e, mode);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_mtime(e, 0, 0);	/* reproducible bytes */
	archive_entry_set_nlink(e, S_ISDIR(mode) ? 2 : 1);
	archive_entry_set_size(e, S_ISREG(mode) ? len : 0);
	if (S_ISCHR(mode) || S_ISBLK(mode))
		archive_entry_set_rdev(e, rdev);
	if (archive_write_header(a, e) != ARCHIVE_OK)
		ret = ar_fail(a, path);
	else if (len && archive_write_data(a, data, len) != (la_ssize_t)len)
		ret = ar_fail(a, path);
	archive_entry_free(e);
	return ret;
}

static int ar_add_file(struct archive *a, const char *path, const char *name,
		       const char *src, mode_t mode)
{
	char *buf;
	size_t len;
	int ret;

	if (read_file(src, &buf, &len) < 0)
		return -1;
	ret = ar_add(a, path, name, S_IFREG | mode, buf, len, 0);
	free(buf);
	return ret;
}

int initramfs_write(const char *path, const struct initramfs_spec *spec)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "mnt", "kpair", "lib", "lib/modules" };
	struct archive *a = archive_write_new();
	char *list = xstrdup("");
	size_t i;
	int ret = -1;

	if (archive_write_set_format_cpio_newc(a) != ARCHIVE_OK ||
	    (spec->gzip && archive_write_add_filter_gzip(a) != ARCHIVE_OK) ||
	    /* no time in the gzip header: the same inputs give the same bytes */
	    (spec->gzip && archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK) ||
	    (!spec->gzip && archive_write_add_filter_none(a) != ARCHIVE_OK) ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_filename(a, path) != ARCHIVE_OK) {
		ar_fail(a, path);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (ar_add(a, path, dirs[i], S_IFDIR | 0755, NULL, 0, 0) < 0)
			goto out_close;
	/* the kernel opens /dev/console for init before devtmpfs is mounted */
	if (ar_add(a, path, "dev/console", S_IFCHR | 0600, NULL, 0, makedev(5, 1)) < 0)
		goto out_close;
	if (ar_add_file(a, path, "init", spec->agent, 0755) < 0)
		goto out_close;
	for (i = 0; spec->mods && i < (size_t)spec->mods->n; i++) {
		const char *rel = spec->mods->path[i];
		const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
		char *src = xasprintf("%s/%s", spec->moddir, rel);
		char *dst = xasprintf("lib/modules/%s", base);
		char *nl = xasprintf("%s/%s%s%s\n", list, dst, spec->mods->args[i] ? " " : "",
				     spec->mods->args[i] ? spec->mods->args[i] : "");
		int bad = ar_add_file(a, path, dst, src, 0644) < 0;

		free(list);
		list = nl;
		free(src);
		free(dst);
		if (bad)
			goto out_close;
	}
	if (ar_add(a, path, "kpair/modules", S_IFREG | 0644, list, strlen(list), 0) < 0 ||
	    ar_add(a, path, "kpair/job", S_IFREG | 0644, spec->job_text, strlen(spec->job_text), 0) < 0)
		goto out_close;
	for (i = 0; i < (size_t)spec->nextra; i++) {
		const struct initramfs_file *f = &spec->extra[i];

		if (!f->src ? ar_add(a, path, f->dst, S_IFDIR | (f->mode & 07777), NULL, 0, 0) < 0 :
		    ar_add_file(a, path, f->dst, f->src, f->mode & 07777) < 0)
			goto out_close;
	}
	ret = 0;
out_close:
	if (archive_write_close(a) != ARCHIVE_OK && !ret)
		ret = ar_fail(a, path);
out:
	archive_write_free(a);
	free(list);
	if (ret < 0)
		unlink(path);
	return ret;
}

void disk_init(struct disk *d)
{
	memset(d, 0, sizeof(*d));
}

void disk_release(struct disk *d)
{
	free(d->path);
	free(d->mkfs_cmd);
	disk_init(d);
}

void free_argv(char **argv)
{
	int i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

char **mkfs_argv(const char *fs, uint64_t blocksize, const char *extra, const char *path)
{
	char **argv = xcalloc(64, sizeof(char *));
	char *copy = xstrdup(extra), *tok, *save = NULL;
	int n = 0;

	argv[n++] = xasprintf("mkfs.%s", fs);
	if (!strcmp(fs, "xfs")) {
		argv[n++] = xstrdup("-f");
		argv[n++] = xstrdup("-q");
		argv[n++] = xstrdup("-b");
		argv[n++] = xasprintf("size=%llu", (unsigned long long)blocksize);
	} else {
		argv[n++] = xstrdup("-F");
		argv[n++] = xstrdup("-q");
		argv[n++] = xstrdup("-b");
		argv[n++] = xasprintf("%llu", (unsigned long long)blocksize);
	}
	for (tok = strtok_r(copy, " \t", &save); tok && n < 60; tok = strtok_r(NULL, " \t", &save))
		argv[n++] = xstrdup(tok);
	argv[n++] = xstrdup(path);
	argv[n] = NULL;
	free(copy);
	return argv;
}

/* cache=none needs O_DIRECT from the host fs; tmpfs, for one, refuses it */
const char *disk_cache_mode(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return "none";
	}
	warning("'%s': the host fs refuses O_DIRECT (%s); using cache=writeback",
		path, strerror(errno));
	return "writeback";
}

int disk_create(struct disk *d, const char *path, uint64_t size, const char *fs,
		uint64_t blocksize, const char *mkfs_options)
{
	struct spawn_result r = SPAWN_RESULT_INIT;
	char **argv;
	int fd, ret = -1;

	disk_init(d);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return error("cannot create disk image '%s': %s", path, strerror(errno));
	if (ftruncate(fd, (off_t)size) < 0) {
		error("cannot size disk image '%s' to %llu bytes: %s", path,
		      (unsigned long long)size, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	d->path = xstrdup(path);
	if (!strcmp(fs, "none")) {
		d->mkfs_cmd = xstrdup("");
		d->cache = disk_cache_mode(path);
		return 0;
	}
	argv = mkfs_argv(fs, blocksize, mkfs_options, path);
	d->mkfs_cmd = spawn_cmdline((const char *const *)argv);
	if (spawn_run((const char *const *)argv, 600000, &r) < 0) {
		error("mkfs did not finish: %s", d->mkfs_cmd);
		goto out_remove;
	}
	if (r.exit_code) {
		error("mkfs failed (exit %d): %s: %s", r.exit_code, d->mkfs_cmd, r.err);
		goto out_remove;
	}
	d->cache = disk_cache_mode(path);
	ret = 0;
	goto out;
out_remove:
	disk_remove(d);
out:
	spawn_result_release(&r);
	free_argv(argv);
	return ret;
}

int disk_remove(struct disk *d)
{
	if (d->path && unlink(d->path) < 0 && errno != ENOENT)
		return error("cannot remove '%s': %s", d->path, strerror(errno));
	return 0;
}

/* append one extent to @t, counting it against @max */
static int extent_add(struct text *t, int *count, int max, off_t beg, off_t end, uint64_t *data,
		      const char *path)
{
	if (++*count > max)
		return error("'%s': more than %d data extents", path, max);
	text_add(t, "ram_extent=%lld+%lld\n", (long long)beg, (long long)(end - beg));
	*data += end - beg;
	return 0;
}

int disk_extents(const char *path, uint64_t merge_gap, int max, char **text, uint64_t *data)
{
	off_t off, beg, end, size, cur_beg = -1, cur_end = -1;
	struct text t = { NULL, 0 };
	int fd, count = 0;

	*data = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	size = lseek(fd, 0, SEEK_END);
	for (off = 0; off < size; off = end) {
		beg = lseek(fd, off, SEEK_DATA);
		if (beg < 0 && errno == ENXIO)
			break;	/* a hole to the end */
		if (beg < 0) {
			error("'%s': SEEK_DATA: %s", path, strerror(errno));
			goto out_fail;
		}
		end = lseek(fd, beg, SEEK_HOLE);
		if (end < 0)
			end = size;
		if (cur_end >= 0 && (uint64_t)(beg - cur_end) < merge_gap) {
			cur_end = end;
			continue;
		}
		if (cur_end >= 0 && extent_add(&t, &count, max, cur_beg, cur_end, data, path) < 0)
			goto out_fail;
		cur_beg = beg;
		cur_end = end;
	}
	if (cur_end >= 0 && extent_add(&t, &count, max, cur_beg, cur_end, data, path) < 0)
		goto out_fail;
	close(fd);
	*text = t.s ? t.s : xstrdup("");
	return 0;
out_fail:
	close(fd);
	free(t.s);
	return -1;
}

/* major * 1000 + minor of a release such as "6.1.0-57-amd64"; 0 when unreadable */
static unsigned release_version(const char *release)
{
	unsigned major = 0, minor = 0;

	if (!release || sscanf(release, "%u.%u", &major, &minor) != 2)
		return 0;
	return major * 1000 + minor;
}

int disk_check(const char *fs, uint64_t blocksize, uint64_t size, const char *mkfs_options,
	       const char *release, long page_size, char *why, size_t len)
{
	int xfs = !strcmp(fs, "xfs");

	if (!strcmp(fs, "none"))
		return 0;
	if (xfs && blocksize < 1024 && !strstr(mkfs_options, "crc=0")) {
		snprintf(why, len, "blocksize %llu: mkfs.xfs refuses blocks under 1024 bytes on a "
			 "v5 (CRC) filesystem (use 1024 or more, or mkfs_options = -m crc=0)",
			 (unsigned long long)blocksize);
		return -1;
	}
	if (xfs && size < 300000000ULL) {
		snprintf(why, len, "size %llu: mkfs.xfs refuses filesystems smaller than 300 MB",
			 (unsigned long long)size);
		return -1;
	}
	/* xfs mounts blocks larger than a page from 6.12 on; ext2/3/4 here never */
	if (page_size > 0 && blocksize > (uint64_t)page_size &&
	    !(xfs && release_version(release) >= 6012)) {
		snprintf(why, len, "blocksize %llu: kernel %s has %ld-byte pages and cannot mount "
			 "%s with blocks larger than a page", (unsigned long long)blocksize,
			 release ? release : "?", page_size, fs);
		return -1;
	}
	return 0;
}
