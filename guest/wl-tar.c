/*
 * wl-tar.c - tar-extract, seed 003 (GNU Hurd ext2fs data_unlock, 2010):
 * `tar xf <source tarball> -C /mnt` on a newly made fs. The harness makes
 * the tarball on the host (harness/tarball.c: ustar, a source-tree shape
 * from the job's seed and the files/dirs/bytes parameters) and attaches it
 * read-only as the second disk. The post read it from a ramdisk, so the
 * whole stream is read into memory first (untimed); the timed part is the
 * extraction, as `time tar xf` saw it as root: mkdir, create, write, owner,
 * mode and mtime for every member, directory mtimes last, no sync. A minimal ustar reader:
 * regular files and directories, checksums checked, no absolute or ".." paths.
 * Samples: tar_s (the published figure), sync_s (the sync after it),
 * tar_files, tar_dirs, tar_bytes (file data), archive_bytes, tar_MBps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record.h"
#include "workload.h"

enum { P_FILES, P_DIRS, P_BYTES, P_SCALE };

static const struct wl_param tar_params[] = {
	[P_FILES] = { "files", UNIT_COUNT, "2500", 1, 10000000, "regular files in the generated tarball" },
	[P_DIRS] = { "dirs", UNIT_COUNT, "250", 1, 1000000, "directories in it, the top one included" },
	[P_BYTES] = { "bytes", UNIT_SIZE, "17M", 0, 16ULL << 30, "file data in it (the post's ~17 MiB source tree)" },
	[P_SCALE] = WL_SCALE_PARAM,
	{ NULL },
};

#define TAR_BLOCK 512

struct tar_stats {
	uint64_t files, dirs, bytes;
};

static int tar_check(const uint64_t *val, const struct wl_disk *disk, char *why, size_t len)
{
	uint64_t files = wl_scaled(val[P_FILES], val[P_SCALE], 1, 1);
	uint64_t bytes = wl_scaled(val[P_BYTES], val[P_SCALE], 1, 0);

	if (!strcmp(disk->fs, "none")) {
		snprintf(why, len, "needs a filesystem (disk.fs = none)");
		return -1;
	}
	/* a block per file at the least */
	return wl_check_fits("the extracted tree", bytes + files * disk->blocksize, disk, why, len);
}

static int octal(const char *p, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < n && p[i] == ' ')
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++)
		v = v * 8 + (uint64_t)(p[i] - '0');
	if (i < n && p[i] != '\0' && p[i] != ' ')
		return -1;	/* base-256 or junk: not ustar as we write it */
	*out = v;
	return 0;
}

static int header_ok(const unsigned char *h)
{
	uint64_t want, sum = 0;
	int i;

	if (octal((const char *)h + 148, 8, &want) < 0)
		return 0;
	for (i = 0; i < TAR_BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return sum == want && !memcmp(h + 257, "ustar", 5);
}

static int zero_block(const unsigned char *h)
{
	int i;

	for (i = 0; i < TAR_BLOCK; i++)
		if (h[i])
			return 0;
	return 1;
}

/* prefix/name of a ustar header into @out, refusing absolute and ".." paths */
static int member_path(const unsigned char *h, char *out, size_t len)
{
	const char *name = (const char *)h, *prefix = (const char *)h + 345;
	char *p;
	int n;

	if (prefix[0])
		n = snprintf(out, len, "%.155s/%.100s", prefix, name);
	else
		n = snprintf(out, len, "%.100s", name);
	if (n <= 0 || (size_t)n >= len || out[0] == '/')
		return -1;
	for (p = out; (p = strstr(p, "..")); p += 2)
		if ((p == out || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
			return -1;
	while (n > 1 && out[n - 1] == '/')
		out[--n] = '\0';
	return 0;
}

struct dir_time {
	char *path;
	uint64_t mtime;
};

static int extract(int root, const unsigned char *a, size_t len, struct tar_stats *st)
{
	struct dir_time *dirs = NULL;
	size_t off = 0, ndirs = 0, cap = 0, i;
	char path[300];
	int ret = -1;

	while (off + TAR_BLOCK <= len) {
		const unsigned char *h = a + off;
		uint64_t size, mode, mtime, uid, gid;
		struct timespec ts[2];
		int fd;

		if (zero_block(h)) {
			ret = 0;
			break;
		}
		if (!header_ok(h) || octal((const char *)h + 124, 12, &size) < 0 ||
		    octal((const char *)h + 100, 8, &mode) < 0 ||
		    octal((const char *)h + 136, 12, &mtime) < 0 ||
		    octal((const char *)h + 108, 8, &uid) < 0 ||
		    octal((const char *)h + 116, 8, &gid) < 0) {
			rec_error("tar", EINVAL, "bad ustar header at offset %zu", off);
			goto out;
		}
		if (member_path(h, path, sizeof(path)) < 0) {
			rec_error("tar", EINVAL, "unsafe member name at offset %zu", off);
			goto out;
		}
		off += TAR_BLOCK;
		if (size > len - off) {
			rec_error("tar", EINVAL, "member '%s' runs past the archive", path);
			goto out;
		}
		ts[0].tv_sec = ts[1].tv_sec = (time_t)mtime;
		ts[0].tv_nsec = ts[1].tv_nsec = 0;
		if (h[156] == '5') {
			if ((mkdirat(root, path, (mode_t)(mode & 07777)) < 0 && errno != EEXIST) ||
			    fchownat(root, path, (uid_t)uid, (gid_t)gid, 0) < 0) {
				rec_error("tar", errno, "mkdir '%s': %s", path, strerror(errno));
				goto out;
			}
			if (ndirs == cap) {
				struct dir_time *n = realloc(dirs, (cap = cap ? 2 * cap : 256) * sizeof(*n));

				if (!n)
					goto out_nomem;
				dirs = n;
			}
			dirs[ndirs].path = strdup(path);
			dirs[ndirs++].mtime = mtime;
			if (!dirs[ndirs - 1].path)
				goto out_nomem;
			st->dirs++;
		} else if (h[156] == '0' || h[156] == '\0') {
			fd = openat(root, path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
				    (mode_t)(mode & 07777));
			if (fd < 0) {
				rec_error("tar", errno, "create '%s': %s", path, strerror(errno));
				goto out;
			}
			/* as root, tar keeps the owner (--same-owner) */
			if (wl_write_full(fd, a + off, size) < 0 ||
			    fchown(fd, (uid_t)uid, (gid_t)gid) < 0 || futimens(fd, ts) < 0 ||
			    close(fd) < 0) {
				rec_error("tar", errno, "write '%s': %s", path, strerror(errno));
				close(fd);
				goto out;
			}
			st->files++;
			st->bytes += size;
		} else {
			rec_error("tar", EINVAL, "member '%s' has type '%c' (only files and dirs)",
				  path, h[156]);
			goto out;
		}
		off += (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	}
	if (ret < 0) {
		rec_error("tar", EINVAL, "archive ends without its end-of-archive blocks");
		goto out;
	}
	/* like tar: directory times last, deepest first, once their contents are in */
	for (i = ndirs; i-- > 0;) {
		struct timespec ts[2] = { { (time_t)dirs[i].mtime, 0 }, { (time_t)dirs[i].mtime, 0 } };

		if (utimensat(root, dirs[i].path, ts, 0) < 0) {
			ret = rec_error("tar", errno, "utime '%s': %s", dirs[i].path, strerror(errno));
			goto out;
		}
	}
	goto out;
out_nomem:
	rec_error("tar", ENOMEM, "out of memory");
out:
	for (i = 0; i < ndirs; i++)
		free(dirs[i].path);
	free(dirs);
	return ret;
}

/* the whole input device into memory: the post's tarball sat on a ramdisk */
static int slurp(const char *dev, unsigned char **buf, size_t *len)
{
	off_t end;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return rec_error("tar", errno, "cannot open input '%s': %s", dev, strerror(errno));
	end = lseek(fd, 0, SEEK_END);
	if (end <= 0 || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return rec_error("tar", errno, "cannot size input '%s'", dev);
	}
	*len = (size_t)end;
	*buf = malloc(*len);
	if (!*buf || wl_read_full(fd, *buf, *len) < 0) {
		close(fd);
		return rec_error("tar", errno, "cannot read input '%s': %s", dev, strerror(errno));
	}
	close(fd);
	return 0;
}

static int tar_run(struct wl_ctx *ctx)
{
	struct tar_stats st = { 0 };
	unsigned char *buf = NULL;
	double t0, t1, t2;
	size_t len = 0;
	int root, ret;

	if (!ctx->input || !ctx->input[0])
		return rec_error("tar", EINVAL, "no input disk (the harness attaches the tarball)");
	if (slurp(ctx->input, &buf, &len) < 0) {
		free(buf);
		return -1;
	}
	root = open(ctx->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0) {
		free(buf);
		return rec_error("tar", errno, "cannot open '%s': %s", ctx->mnt, strerror(errno));
	}
	t0 = wl_now();
	ret = extract(root, buf, len, &st);
	t1 = wl_now();
	close(root);
	free(buf);
	if (ret < 0)
		return -1;
	sync();
	t2 = wl_now();
	rec_sample("tar_s", "s", t1 - t0);
	rec_sample("sync_s", "s", t2 - t1);
	rec_sample("tar_files", "files", (double)st.files);
	rec_sample("tar_dirs", "dirs", (double)st.dirs);
	rec_sample("tar_bytes", "B", (double)st.bytes);
	rec_sample("archive_bytes", "B", (double)len);
	rec_sample("tar_MBps", "MB/s", st.bytes / 1e6 / (t1 - t0));
	return 0;
}

const struct workload wl_tar_extract = {
	.name = "tar-extract",
	.help = "seed 003: tar xf a generated source-tree tarball (second disk) onto the fresh fs",
	.params = tar_params,
	.check = tar_check,
	.run = tar_run,
	.input = WL_INPUT_TARBALL,
};
