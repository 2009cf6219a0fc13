/*
 * image.h - what a guest boots from and writes to: the initramfs (guest agent
 * as /init, kernel modules in load order, the job file) and scratch disks.
 */
#ifndef KPAIR_IMAGE_H
#define KPAIR_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define MODLIST_MAX 64

/* modules in load order: paths relative to the modules directory */
struct modlist {
	char *path[MODLIST_MAX];
	char *args[MODLIST_MAX];	/* load-time parameters ("rd_nr=1 ..."), or NULL */
	int n;
};

void modlist_init(struct modlist *m);
void modlist_release(struct modlist *m);
/* give module @name (if it is in the list) the load-time parameters @args; 1 if it is, else 0 */
int modlist_set_args(struct modlist *m, const char *name, const char *args);
/*
 * Resolve @names (module names, '-' and '_' alike) against the text of a
 * modules.dep, appending each module after everything it depends on. Names
 * listed in @builtin (the text of modules.builtin, may be NULL) are skipped.
 */
int modules_resolve(const char *dep_text, const char *builtin_text,
		    const char *const *names, int nnames, struct modlist *out);

/* one more entry in the initramfs: a host file, or a directory when src is NULL */
struct initramfs_file {
	const char *src;		/* host path; NULL: a directory */
	const char *dst;		/* path in the archive, no leading '/' */
	unsigned mode;			/* permission bits */
};

#define INITRAMFS_EXTRA_MAX 8

struct initramfs_spec {
	const char *agent;		/* static agent binary, becomes /init */
	const char *moddir;		/* lib/modules/<release> or NULL */
	const struct modlist *mods;
	const char *job_text;		/* becomes /kpair/job */
	int gzip;			/* compress the archive */
	struct initramfs_file extra[INITRAMFS_EXTRA_MAX];	/* e.g. kpair/tools/fio */
	int nextra;			/* written after everything else, in order */
};

/* write a newc cpio archive to @path */
int initramfs_write(const char *path, const struct initramfs_spec *spec);

struct disk {
	char *path;
	char *mkfs_cmd;		/* the exact command run, for result.json */
	const char *cache;	/* "none", or "writeback" where O_DIRECT is refused */
};

void disk_init(struct disk *d);
void disk_release(struct disk *d);	/* frees, does not remove the file */
/* argv of the mkfs for @fs (ext2/3/4, xfs); @extra is split on spaces. Caller frees argv and strings via free_argv */
char **mkfs_argv(const char *fs, uint64_t blocksize, const char *extra, const char *path);
void free_argv(char **argv);
/* sparse raw image of @size bytes at @path, made with mkfs unless fs is "none" */
int disk_create(struct disk *d, const char *path, uint64_t size, const char *fs,
		uint64_t blocksize, const char *mkfs_options);
int disk_remove(struct disk *d);

/*
 * The data of a sparse image as /kpair/job lines "ram_extent=OFFSET+LENGTH",
 * holes found with SEEK_DATA/SEEK_HOLE, extents less than @merge_gap apart
 * joined. *@data gets the bytes they cover. At most @max extents.
 */
int disk_extents(const char *path, uint64_t merge_gap, int max, char **text, uint64_t *data);
/* "none", or "writeback" (with a warning) where the host fs refuses O_DIRECT */
const char *disk_cache_mode(const char *path);

/*
 * Would mkfs make, and would kernel @release with @page_size pages mount, an
 * @fs disk of @size bytes with @blocksize blocks? 0, or -1 with a reason in @why.
 * Run before any image is made.
 */
int disk_check(const char *fs, uint64_t blocksize, uint64_t size, const char *mkfs_options,
	       const char *release, long page_size, char *why, size_t len);

#endif
