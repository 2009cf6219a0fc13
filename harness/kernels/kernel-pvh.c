/* kernel-pvh.c - the ELF vmlinux of a kernel store entry, for QEMU's PVH entry point */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "util.h"

/* the ELF payload of an xz-compressed bzImage, decompressed into @out */
static int unxz_bzimage(const char *image, const char *out)
{
	static const unsigned char magic[6] = { 0xfd, '7', 'z', 'X', 'Z', 0x00 };
	lzma_stream zs = LZMA_STREAM_INIT;
	unsigned char *obuf = NULL;
	char *buf, *tmp = NULL;
	size_t len, off;
	int fd = -1, ret = -1;
	lzma_ret lr;

	if (read_file(image, &buf, &len) < 0)
		return -1;
	for (off = 0; off + sizeof(magic) < len; off++)
		if (!memcmp(buf + off, magic, sizeof(magic)))
			break;
	if (off + sizeof(magic) >= len) {
		error("'%s' has no xz payload", image);
		goto out;
	}
	if (lzma_stream_decoder(&zs, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
		error("liblzma: cannot start a decoder");
		goto out;
	}
	tmp = xasprintf("%s.tmp.%d", out, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		error("cannot create '%s': %s", tmp, strerror(errno));
		goto out_end;
	}
	obuf = malloc(1 << 20);
	if (!obuf)
		goto out_end;
	zs.next_in = (const uint8_t *)buf + off;
	zs.avail_in = len - off;
	do {
		zs.next_out = obuf;
		zs.avail_out = 1 << 20;
		/* the bzImage goes on past the payload: stop at the stream's end */
		lr = lzma_code(&zs, LZMA_FINISH);
		if (write(fd, obuf, (1 << 20) - zs.avail_out) != (ssize_t)((1 << 20) - zs.avail_out)) {
			error("cannot write '%s': %s", tmp, strerror(errno));
			goto out_end;
		}
	} while (lr == LZMA_OK);
	if (lr != LZMA_STREAM_END && !(lr == LZMA_DATA_ERROR && zs.total_out > 0)) {
		error("'%s': xz payload does not decompress (liblzma error %d)", image, (int)lr);
		goto out_end;
	}
	if (fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		error("cannot write '%s': %s", tmp, strerror(errno));
		goto out_end;
	}
	fd = -1;
	if (rename(tmp, out) < 0) {
		error("cannot rename '%s': %s", tmp, strerror(errno));
		goto out_end;
	}
	ret = 0;
out_end:
	lzma_end(&zs);
	if (fd >= 0)
		close(fd);
	if (ret < 0 && tmp)
		unlink(tmp);
out:
	free(obuf);
	free(tmp);
	free(buf);
	return ret;
}

/* an ELF note "Xen", type XEN_ELFNOTE_PHYS32_ENTRY (18): QEMU's PVH entry point */
int kernel_elf_has_pvh_note(const char *path)
{
	char *buf;
	size_t len, i;
	int found = 0;

	if (read_file(path, &buf, &len) < 0)
		return 0;
	if (len > 4 && !memcmp(buf, "\177ELF", 4)) {
		for (i = 0; i + 16 <= len && !found; i += 4) {
			const unsigned char *n = (const unsigned char *)buf + i;

			found = !memcmp(n, "\4\0\0\0", 4) && (n[4] == 4 || n[4] == 8) &&
				!memcmp(n + 5, "\0\0\0\22\0\0\0Xen\0", 11);
		}
	}
	free(buf);
	return found;
}

int kernel_pvh_image(const struct kernel *k, char **path)
{
	char *cfgpath = xasprintf("%s/config", k->dir), *config = NULL;
	char *out = xasprintf("%s/vmlinux", k->dir);
	int ret = 0;

	*path = NULL;
	if (path_exists(out)) {
		*path = out;
		free(cfgpath);
		return 0;
	}
	if (strcmp(k->arch, "amd64") && strcmp(k->arch, "i386"))
		goto out;
	if (read_file(cfgpath, &config, NULL) < 0 || !strstr(config, "\nCONFIG_PVH=y\n"))
		goto out;
	if (!strstr(config, "\nCONFIG_KERNEL_XZ=y\n"))
		goto out;	/* other payloads: boot the bzImage */
	{
		int lock = kernel_store_lock();

		if (!path_exists(out))
			ret = unxz_bzimage(k->image, out);
		if (lock >= 0)
			close(lock);
	}
	if (!ret && !kernel_elf_has_pvh_note(out)) {
		unlink(out);
		goto out;
	}
	if (!ret) {
		*path = out;
		out = NULL;
	}
out:
	free(out);
	free(config);
	free(cfgpath);
	return ret;
}
