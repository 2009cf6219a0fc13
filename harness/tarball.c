/*
 * tarball.c - a deterministic source-tree tarball for tar-extract (seed 003).
 * Shape: a top directory and dirs-1 more, each under the shallower of two
 * random earlier ones (at most 8 deep), files spread over them with log-normal sizes (median
 * 2.5 KiB, like C sources and headers) scaled so they add up to exactly
 * `bytes`, filled with source-like text. Every random choice comes from the
 * seed (guest/workload.c's generator), so one seed and shape give the same
 * archive bytes on every host. Written as ustar by libarchive, members in
 * depth-first order (a directory, then its files), mtimes near April 2009.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "../guest/workload.h"
#include "spawn.h"
#include "tarball.h"
#include "util.h"

#define TREE_MAX_DEPTH 8
#define TEXT_POOL (64 << 10)
#define BASE_MTIME 1238803200	/* 2009-04-04, the hurd tarball's date */

static const char *const dir_words[] = {
	"lib", "src", "include", "doc", "util", "tests", "fs", "net", "mach", "boot",
	"proc", "term", "console", "pfinet", "libdiskfs", "libports", "libstore", "ext2fs",
	"exec", "init", "trans", "sysdeps", "config", "daemons", "hurd", "libpager",
};
static const char *const file_words[] = {
	"main", "io", "node", "inode", "dir", "file", "pager", "storage", "getblk",
	"balloc", "ialloc", "truncate", "hyper", "msg", "ports", "demux", "rpc", "trans",
	"device", "priv", "startup", "notify", "fsys", "lookup", "symlink", "xattr",
};
static const char *const file_exts[] = {
	"c", "c", "c", "c", "h", "h", "h", "defs", "texi", "mk", "S", "sh", "txt",
};
static const char text_chars[] =
	"abcdefghijklmnopqrstuvwxyz abcdefghijklmnopqrstuvwxyz    ()[]{};,.*=+-_/\n\n\t";

struct tree_dir {
	char *path;
	int depth;
	uint64_t nfiles, first;	/* its files: order[first .. first + nfiles) */
};

void tarball_init(struct tarball *t)
{
	memset(t, 0, sizeof(*t));
}

void tarball_release(struct tarball *t)
{
	free(t->path);
	free(t->manifest);
	tarball_init(t);
}

char *tarball_key(const struct tar_shape *s)
{
	return xasprintf("tree-v2-s%llu-f%llu-d%llu-b%llu", (unsigned long long)s->seed,
			 (unsigned long long)s->files, (unsigned long long)s->dirs,
			 (unsigned long long)s->bytes);
}

#define PICK(r, a) (a)[wl_rand_below((r), sizeof(a) / sizeof((a)[0]))]

/* a standard normal deviate (Box-Muller) */
static double normal(struct wl_rand *r)
{
	double u = wl_rand_unit(r), v = wl_rand_unit(r);

	return sqrt(-2.0 * log(1.0 - u)) * cos(2 * M_PI * v);
}

/* @n file sizes adding up to exactly @bytes */
static void file_sizes(struct wl_rand *r, uint64_t n, uint64_t bytes, uint64_t *size)
{
	double *raw = xcalloc(n, sizeof(*raw)), total = 0;
	uint64_t i, sum = 0;

	for (i = 0; i < n; i++) {
		raw[i] = exp(log(2500.0) + 1.3 * normal(r));
		total += raw[i];
	}
	for (i = 0; i < n; i++) {
		size[i] = (uint64_t)(raw[i] / total * (double)bytes);
		sum += size[i];
	}
	/* the rounding remainder, a byte each to random files */
	while (sum < bytes) {
		size[wl_rand_below(r, n)]++;
		sum++;
	}
	free(raw);
}

static int ar_entry(struct archive *a, const char *path, mode_t mode, uint64_t size,
		    time_t mtime)
{
	struct archive_entry *e = archive_entry_new();
	int ret = 0;

	archive_entry_set_pathname(e, path);
	archive_entry_set_mode(e, mode);
	archive_entry_set_size(e, (la_int64_t)size);
	archive_entry_set_mtime(e, mtime, 0);
	archive_entry_set_uid(e, 1000);
	archive_entry_set_gid(e, 1000);
	archive_entry_set_uname(e, "kpair");
	archive_entry_set_gname(e, "kpair");
	if (archive_write_header(a, e) != ARCHIVE_OK)
		ret = error("tarball: '%s': %s", path, archive_error_string(a));
	archive_entry_free(e);
	return ret;
}

static int ar_data(struct archive *a, const char *pool, uint64_t start, uint64_t size)
{
	uint64_t off = start % TEXT_POOL, done = 0;

	while (done < size) {
		size_t n = size - done < TEXT_POOL - off ? size - done : TEXT_POOL - off;

		if (archive_write_data(a, pool + off, n) != (la_ssize_t)n)
			return error("tarball: write: %s", archive_error_string(a));
		done += n;
		off = 0;
	}
	return 0;
}

int tarball_write(const struct tar_shape *s, const char *path, struct tarball *out)
{
	uint64_t nd = s->dirs ? s->dirs : 1, nf = s->files, i, *size, *fdir, *order, *fill;
	struct tree_dir *dirs = xcalloc(nd, sizeof(*dirs));
	struct archive *a = archive_write_new();
	char *pool = xcalloc(1, TEXT_POOL), **fname;
	struct wl_rand r;
	int ret = -1;

	size = xcalloc(nf + 1, sizeof(*size));
	fdir = xcalloc(nf + 1, sizeof(*fdir));
	order = xcalloc(nf + 1, sizeof(*order));
	fill = xcalloc(nd, sizeof(*fill));
	fname = xcalloc(nf + 1, sizeof(*fname));
	wl_rand_init(&r, s->seed, 3);
	for (i = 0; i < TEXT_POOL; i++)
		pool[i] = text_chars[wl_rand_below(&r, sizeof(text_chars) - 1)];
	dirs[0].path = xasprintf("srctree-%llu", (unsigned long long)s->seed);
	for (i = 1; i < nd; i++) {
		uint64_t p = wl_rand_below(&r, i), q = wl_rand_below(&r, i);

		/* the shallower of two: source trees are wide rather than deep */
		if (dirs[q].depth < dirs[p].depth)
			p = q;
		if (dirs[p].depth >= TREE_MAX_DEPTH)
			p = 0;
		dirs[i].depth = dirs[p].depth + 1;
		dirs[i].path = xasprintf("%s/%s%llu", dirs[p].path, PICK(&r, dir_words),
					 (unsigned long long)i);
	}
	for (i = 0; i < nf; i++) {
		fdir[i] = wl_rand_below(&r, nd);
		dirs[fdir[i]].nfiles++;
		fname[i] = xasprintf("%s%llu.%s", PICK(&r, file_words), (unsigned long long)i,
				     PICK(&r, file_exts));
	}
	if (nf)
		file_sizes(&r, nf, s->bytes, size);
	for (i = 1; i < nd; i++)
		dirs[i].first = dirs[i - 1].first + dirs[i - 1].nfiles;
	for (i = 0; i < nf; i++)
		order[dirs[fdir[i]].first + fill[fdir[i]]++] = i;

	tarball_init(out);
	if (archive_write_set_format_ustar(a) != ARCHIVE_OK ||
	    archive_write_add_filter_none(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, path) != ARCHIVE_OK) {
		error("tarball: cannot write '%s': %s", path, archive_error_string(a));
		goto out;
	}
	for (i = 0; i < nd; i++) {
		uint64_t k;

		if (ar_entry(a, dirs[i].path, S_IFDIR | 0755, 0,
			     BASE_MTIME + (time_t)wl_rand_below(&r, 86400 * 365)) < 0)
			goto out_close;
		out->dirs++;
		for (k = dirs[i].first; k < dirs[i].first + dirs[i].nfiles; k++) {
			uint64_t f = order[k];
			char *p = xasprintf("%s/%s", dirs[i].path, fname[f]);
			int bad = ar_entry(a, p, S_IFREG | 0644, size[f],
					   BASE_MTIME + (time_t)wl_rand_below(&r, 86400 * 365)) < 0 ||
				  ar_data(a, pool, wl_rand_next(&r), size[f]) < 0;

			free(p);
			if (bad)
				goto out_close;
			out->files++;
			out->bytes += size[f];
		}
	}
	ret = 0;
out_close:
	if (archive_write_close(a) != ARCHIVE_OK && !ret)
		ret = error("tarball: cannot finish '%s': %s", path, archive_error_string(a));
out:
	archive_write_free(a);
	for (i = 0; i < nd; i++)
		free(dirs[i].path);
	for (i = 0; i < nf; i++)
		free(fname[i]);
	free(fname);
	free(fill);
	free(order);
	free(fdir);
	free(size);
	free(dirs);
	free(pool);
	if (ret < 0)
		unlink(path);
	return ret;
}

static int load_manifest(const char *path, struct tarball *t)
{
	json_int_t files, dirs, bytes, abytes;
	const char *sha;
	json_error_t jerr;
	json_t *j = json_load_file(path, 0, &jerr);
	int ret = -1;

	if (!j)
		return -1;
	if (!json_unpack_ex(j, &jerr, 0, "{s:I, s:I, s:I, s:I, s:s}", "files", &files, "dirs", &dirs,
			    "bytes", &bytes, "archive_bytes", &abytes, "sha256", &sha) &&
	    strlen(sha) == 64) {
		t->files = files;
		t->dirs = dirs;
		t->bytes = bytes;
		t->archive_bytes = abytes;
		snprintf(t->sha256, sizeof(t->sha256), "%s", sha);
		ret = 0;
	}
	json_decref(j);
	return ret;
}

int tarball_get(const struct tar_shape *s, struct tarball *out)
{
	char *key = tarball_key(s), *dir = xasprintf("%s/images/tarballs", kpair_root());
	char *tar = xasprintf("%s/%s.tar", dir, key), *man = xasprintf("%s/%s.json", dir, key);
	char *tmp = xasprintf("%s.tmp.%d", tar, (int)getpid()), *text = NULL;
	struct tarball t;
	struct stat st;
	json_t *j = NULL;
	int ret = -1;

	tarball_init(&t);
	if (path_exists(tar) && load_manifest(man, &t) == 0)
		goto found;
	if (mkdir_p(dir, 0755) < 0)
		goto out;
	info("tarball: making %s", key);
	if (tarball_write(s, tmp, &t) < 0 || stat(tmp, &st) < 0 || sha256_file(tmp, t.sha256) < 0)
		goto out_unlink;
	t.archive_bytes = st.st_size;
	j = json_pack("{s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:s, s:s}", "format", 1, "key", key,
		      "seed", (json_int_t)s->seed, "files", (json_int_t)t.files,
		      "dirs", (json_int_t)t.dirs, "bytes", (json_int_t)t.bytes,
		      "archive_bytes", (json_int_t)t.archive_bytes, "blocks_512",
		      (json_int_t)(t.archive_bytes / 512), "format_name", "ustar",
		      "sha256", t.sha256);
	text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	if (!text || write_file_atomic(man, text, strlen(text)) < 0)
		goto out_unlink;
	if (rename(tmp, tar) < 0) {
		error("cannot rename '%s': %s", tmp, strerror(errno));
		goto out_unlink;
	}
found:
	t.path = tar;
	t.manifest = man;
	tar = man = NULL;
	*out = t;
	ret = 0;
	goto out;
out_unlink:
	unlink(tmp);
out:
	json_decref(j);
	free(text);
	free(tmp);
	free(man);
	free(tar);
	free(dir);
	free(key);
	return ret;
}
