/* source.c - kernel source trees: a Debian linux-source package unpacked once, and its version */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"
#include "spawn.h"
#include "util.h"

/* extract a .tar.xz into @dest, dropping the archive's top directory */
static int untar_strip(const char *tarball, const char *dest)
{
	struct archive *in = archive_read_new(), *out = archive_write_disk_new();
	struct archive_entry *e;
	int r, ret = -1;
	long n = 0;

	archive_read_support_filter_all(in);
	archive_read_support_format_tar(in);
	archive_write_disk_set_options(out, ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_PERM |
				       ARCHIVE_EXTRACT_SECURE_NODOTDOT | ARCHIVE_EXTRACT_SECURE_SYMLINKS);
	if (archive_read_open_filename(in, tarball, 1 << 20) != ARCHIVE_OK) {
		error("cannot open '%s': %s", tarball, archive_error_string(in));
		goto out;
	}
	while ((r = archive_read_next_header(in, &e)) == ARCHIVE_OK) {
		const char *p = archive_entry_pathname(e), *slash = strchr(p, '/');
		const char *link = archive_entry_hardlink(e);
		char *np;

		if (!slash || !slash[1])
			continue;
		np = xasprintf("%s/%s", dest, slash + 1);
		archive_entry_set_pathname(e, np);
		free(np);
		if (link && strchr(link, '/')) {
			np = xasprintf("%s/%s", dest, strchr(link, '/') + 1);
			archive_entry_set_hardlink(e, np);
			free(np);
		}
		if (archive_write_header(out, e) != ARCHIVE_OK) {
			error("cannot extract '%s': %s", p, archive_error_string(out));
			goto out;
		}
		if (archive_entry_size(e) > 0) {
			const void *buf;
			size_t len;
			la_int64_t off;

			while ((r = archive_read_data_block(in, &buf, &len, &off)) == ARCHIVE_OK)
				if (archive_write_data_block(out, buf, len, off) != ARCHIVE_OK) {
					error("cannot write '%s': %s", p, archive_error_string(out));
					goto out;
				}
			if (r != ARCHIVE_EOF) {
				error("'%s': %s", tarball, archive_error_string(in));
				goto out;
			}
		}
		archive_write_finish_entry(out);
		n++;
	}
	if (r != ARCHIVE_EOF) {
		error("'%s': %s", tarball, archive_error_string(in));
		goto out;
	}
	info("build: unpacked %ld files into %s", n, dest);
	ret = 0;
out:
	archive_read_free(in);
	archive_write_free(out);
	return ret;
}

/* a linux-source-X package: downloaded, its tarball unpacked once into @src */
int source_unpack_package(const char *pkg, const char *work, const char *src, char **pkgver)
{
	char *dl = xasprintf("%s/dl", work), *x = NULL, *deb = NULL, *tarball = NULL;
	char *marker = xasprintf("%s/.kpair-unpacked", src), *tmp = NULL;
	const char *dargv[] = { "apt-get", "download", "-q", pkg, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = -1;

	if (path_exists(marker)) {
		char *v;

		if (read_file(marker, &v, NULL) == 0) {
			v[strcspn(v, "\n")] = '\0';
			*pkgver = v;
			ret = 0;
		}
		goto out;
	}
	rm_rf(dl);
	if (mkdir_p(dl, 0755) < 0 || !(tmp = make_temp_dir(work, "src")))	/* under the tree's lock */
		goto out;
	info("build: apt-get download %s", pkg);
	if (spawn_checked(dargv, dl, 1800000, &r) < 0)
		goto out;
	spawn_result_release(&r);
	{
		const char *largv[] = { "find", dl, "-maxdepth", "1", "-name", "*.deb", NULL };

		if (spawn_checked(largv, NULL, 60000, &r) < 0 || !*r.out) {
			error("apt-get download left no .deb for '%s'", pkg);
			goto out;
		}
		deb = xasprintf("%.*s", (int)strcspn(r.out, "\n"), r.out);
		spawn_result_release(&r);
	}
	{
		const char *vargv[] = { "dpkg-deb", "-f", deb, "Version", NULL };

		if (spawn_checked(vargv, NULL, 60000, &r) < 0)
			goto out;
		*pkgver = xasprintf("%.*s", (int)strcspn(r.out, "\n"), r.out);
		spawn_result_release(&r);
	}
	x = xasprintf("%s/x", dl);
	{
		const char *xargv[] = { "dpkg-deb", "-x", deb, x, NULL };
		char *base = strdup(pkg);

		if (spawn_checked(xargv, NULL, 600000, &r) < 0) {
			free(base);
			goto out;
		}
		tarball = xasprintf("%s/usr/src/%s.tar.xz", x, base);
		free(base);
	}
	if (untar_strip(tarball, tmp) < 0)
		goto out;
	{
		char *m = xasprintf("%s/.kpair-unpacked", tmp);
		int bad = write_file_atomic(m, *pkgver, strlen(*pkgver)) < 0;

		free(m);
		if (bad)
			goto out;
	}
	rm_rf(src);
	if (chmod(tmp, 0755) < 0 || rename(tmp, src) < 0) {
		error("cannot move '%s' to '%s': %s", tmp, src, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	rm_rf(dl);
	if (ret < 0 && tmp)
		rm_rf(tmp);
	spawn_result_release(&r);
	free(tarball);
	free(deb);
	free(x);
	free(dl);
	free(marker);
	free(tmp);
	return ret;
}

/* "6.1.192" from the tree's Makefile */
char *source_version(const char *src)
{
	static const char *const keys[] = { "VERSION = ", "PATCHLEVEL = ", "SUBLEVEL = ", "EXTRAVERSION =" };
	char *path = xasprintf("%s/Makefile", src), *buf, *v[4] = { 0 }, *out;
	int i;

	if (read_file(path, &buf, NULL) < 0) {
		free(path);
		return NULL;
	}
	for (i = 0; i < 4; i++) {
		char *p = strstr(buf, keys[i]);

		if (p && (p == buf || p[-1] == '\n')) {
			p += strlen(keys[i]);
			while (*p == ' ')
				p++;
			v[i] = xasprintf("%.*s", (int)strcspn(p, "\n"), p);
		} else {
			v[i] = xstrdup("");
		}
	}
	out = *v[0] ? xasprintf("%s.%s.%s%s", v[0], v[1], v[2], v[3]) : NULL;
	if (!out)
		error("'%s' is not a kernel Makefile", path);
	for (i = 0; i < 4; i++)
		free(v[i]);
	free(buf);
	free(path);
	return out;
}

