/*
 * t-image.c - unit tests of harness/image.c: module load order from
 * modules.dep text, the initramfs as the kernel will unpack it (read back
 * with libarchive), and the mkfs command lines for scratch disks.
 */
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/stat.h>

#include "unit.h"

#include "image.h"
#include "util.h"

/* a modules.dep in depmod's format; top -> mid -> leaf is listed one level at a time */
static const char dep_text[] =
	"kernel/fs/ext4/ext4.ko.xz: kernel/lib/crc16.ko.xz kernel/fs/mbcache.ko.xz "
	"kernel/fs/jbd2/jbd2.ko.xz\n"
	"kernel/fs/jbd2/jbd2.ko.xz:\n"
	"kernel/fs/mbcache.ko.xz:\n"
	"kernel/lib/crc16.ko.xz:\n"
	"kernel/drivers/virtio/virtio_pci.ko.xz: kernel/drivers/virtio/virtio_pci_legacy_dev.ko.xz "
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko.xz kernel/drivers/virtio/virtio.ko.xz "
	"kernel/drivers/virtio/virtio_ring.ko.xz\n"
	"kernel/drivers/virtio/virtio_pci_legacy_dev.ko.xz:\n"
	"kernel/drivers/virtio/virtio_pci_modern_dev.ko.xz:\n"
	"kernel/drivers/virtio/virtio_ring.ko.xz:\n"
	"kernel/drivers/virtio/virtio.ko.xz:\n"
	"kernel/drivers/block/virtio_blk.ko.xz: kernel/drivers/virtio/virtio.ko.xz "
	"kernel/drivers/virtio/virtio_ring.ko.xz\n"
	"kernel/drivers/char/virtio_console.ko.xz:\tkernel/drivers/virtio/virtio.ko.xz\t"
	"kernel/drivers/virtio/virtio_ring.ko.xz\n"
	"kernel/fs/xfs/xfs.ko.xz: kernel/lib/libcrc32c.ko.xz\n"
	"kernel/lib/libcrc32c.ko.xz:\n"
	"kernel/drivers/hid/hid-generic.ko.xz: kernel/drivers/hid/hid.ko.xz\n"
	"kernel/drivers/hid/hid.ko.xz:\n"
	"kernel/net/9p/9pnet_virtio.ko: kernel/net/9p/9pnet.ko kernel/drivers/virtio/virtio.ko.xz "
	"kernel/drivers/virtio/virtio_ring.ko.xz\n"
	"kernel/net/9p/9pnet.ko:\n"
	"kernel/test/top.ko.xz: kernel/test/mid.ko.xz\n"
	"kernel/test/mid.ko.xz: kernel/test/leaf.ko.xz\n"
	"kernel/test/leaf.ko.xz:";	/* no newline at the end */

/* the dependencies modules.dep gives for @path, by our own reading of @dep */
static int deps_of(const char *dep, const char *path, char deps[][128], int max)
{
	size_t plen = strlen(path);
	const char *p = dep;
	int n = 0;

	while (*p) {
		const char *eol = strchr(p, '\n');

		if (!eol)
			eol = p + strlen(p);
		if ((size_t)(eol - p) > plen && !strncmp(p, path, plen) && p[plen] == ':') {
			const char *q = p + plen + 1;

			while (q < eol) {
				size_t k;

				while (q < eol && (*q == ' ' || *q == '\t'))
					q++;
				k = strcspn(q, " \t\n");
				if (q + k > eol)
					k = eol - q;
				if (k) {
					assert_true(n < max && k < 128);
					memcpy(deps[n], q, k);
					deps[n++][k] = '\0';
				}
				q += k;
			}
			return n;
		}
		p = *eol ? eol + 1 : eol;
	}
	return -1;
}

static int index_of(const struct modlist *m, const char *path)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->path[i], path))
			return i;
	return -1;
}

/* every module after all its dependencies, each once, each a modules.dep path */
static void check_order(const char *dep, const char *builtin, const struct modlist *m)
{
	char deps[16][128];
	int i, j, n;

	for (i = 0; i < m->n; i++) {
		assert_int_equal(index_of(m, m->path[i]), i);
		n = deps_of(dep, m->path[i], deps, 16);
		if (n < 0)
			fail_msg("'%s' is not a modules.dep path", m->path[i]);
		for (j = 0; j < n; j++) {
			int k = index_of(m, deps[j]);

			if (k < 0 && builtin)
				continue;	/* builtin: not in modules.dep */
			if (k < 0 || k > i)
				fail_msg("'%s' (at %d) needs '%s' (at %d) first", m->path[i], i,
					 deps[j], k);
		}
	}
}

/* resolve @names; returns the result, with what went to stderr in *err */
static int resolve(const char *dep, const char *builtin, const char *const *names, int n,
		   struct modlist *m, char **err)
{
	struct capture cap;
	int ret;

	modlist_init(m);
	capture_start(&cap);
	ret = modules_resolve(dep, builtin, names, n, m);
	*err = capture_end(&cap);
	return ret;
}

static void test_resolve_ext4(void **state)
{
	static const char *const names[] = { "ext4" };
	struct modlist m;
	char *err;

	(void)state;
	assert_int_equal(resolve(dep_text, NULL, names, 1, &m, &err), 0);
	assert_string_equal(err, "");
	assert_int_equal(m.n, 4);
	assert_string_equal(m.path[3], "kernel/fs/ext4/ext4.ko.xz");
	assert_true(index_of(&m, "kernel/fs/jbd2/jbd2.ko.xz") >= 0);
	assert_true(index_of(&m, "kernel/fs/mbcache.ko.xz") >= 0);
	assert_true(index_of(&m, "kernel/lib/crc16.ko.xz") >= 0);
	check_order(dep_text, NULL, &m);
	modlist_release(&m);
	assert_int_equal(m.n, 0);
	free(err);
}

static void test_resolve_chain(void **state)
{
	static const char *const names[] = { "top" };
	struct modlist m;
	char *err;

	(void)state;
	/* mid's own dependency is only on mid's line: it must still come first */
	assert_int_equal(resolve(dep_text, NULL, names, 1, &m, &err), 0);
	assert_int_equal(m.n, 3);
	assert_string_equal(m.path[0], "kernel/test/leaf.ko.xz");
	assert_string_equal(m.path[1], "kernel/test/mid.ko.xz");
	assert_string_equal(m.path[2], "kernel/test/top.ko.xz");
	modlist_release(&m);
	free(err);
}

static void test_resolve_many(void **state)
{
	static const char *const names[] = {
		"ext4", "virtio_pci", "virtio-blk", "virtio_console", "jbd2", "hid_generic",
		"hid-generic", "9pnet-virtio", "xfs", "mid", "top", "virtio",
	};
	static const char *const want[] = {
		"kernel/fs/ext4/ext4.ko.xz", "kernel/drivers/virtio/virtio_pci.ko.xz",
		"kernel/drivers/block/virtio_blk.ko.xz", "kernel/drivers/char/virtio_console.ko.xz",
		"kernel/drivers/hid/hid-generic.ko.xz", "kernel/net/9p/9pnet_virtio.ko",
		"kernel/net/9p/9pnet.ko", "kernel/fs/xfs/xfs.ko.xz", "kernel/lib/libcrc32c.ko.xz",
		"kernel/drivers/virtio/virtio_ring.ko.xz", "kernel/test/leaf.ko.xz",
	};
	struct modlist m;
	size_t i;
	char *err;

	(void)state;
	assert_int_equal(resolve(dep_text, NULL, names, sizeof(names) / sizeof(names[0]), &m,
				 &err), 0);
	assert_string_equal(err, "");
	/* ext4 4, virtio_pci 5, virtio_blk 1, virtio_console 1, hid 2, 9p 2, xfs 2, test 3 */
	assert_int_equal(m.n, 20);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (index_of(&m, want[i]) < 0)
			fail_msg("'%s' missing", want[i]);
	check_order(dep_text, NULL, &m);
	modlist_release(&m);
	free(err);
}

static void test_resolve_twice_appends(void **state)
{
	static const char *const a[] = { "virtio_blk" }, *const b[] = { "virtio_pci" };
	struct modlist m;

	(void)state;
	/* a second call adds to the list without repeating what is there */
	modlist_init(&m);
	assert_int_equal(modules_resolve(dep_text, NULL, a, 1, &m), 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(modules_resolve(dep_text, NULL, b, 1, &m), 0);
	assert_int_equal(m.n, 6);
	check_order(dep_text, NULL, &m);
	assert_int_equal(modules_resolve(dep_text, NULL, NULL, 0, &m), 0);
	assert_int_equal(m.n, 6);
	modlist_release(&m);
}

static void test_resolve_missing(void **state)
{
	static const char *const names[] = { "ext4", "nosuch_mod" };
	static const char needy[] = "kernel/a/needy.ko.xz: kernel/a/gone-away.ko.xz\n";
	static const char *const need[] = { "needy" };
	struct modlist m;
	char *err;

	(void)state;
	assert_int_equal(resolve(dep_text, NULL, names, 2, &m, &err), -1);
	assert_contains(err, "module 'nosuch_mod' is not in modules.dep");
	modlist_release(&m);
	free(err);

	/* a module's dependency missing too; names are reported with '_' */
	assert_int_equal(resolve(needy, NULL, need, 1, &m, &err), -1);
	assert_contains(err, "module 'gone_away' is not in modules.dep");
	modlist_release(&m);
	free(err);

	/* a prefix of a name is not the name */
	assert_int_equal(resolve(dep_text, NULL, (const char *const[]){ "ext" }, 1, &m, &err), -1);
	assert_contains(err, "module 'ext' is not in modules.dep");
	modlist_release(&m);
	free(err);

	/* builtin text that does not list it does not help */
	assert_int_equal(resolve(dep_text, "kernel/lib/crc32c_generic.ko\n",
				 (const char *const[]){ "crc32c" }, 1, &m, &err), -1);
	assert_contains(err, "module 'crc32c' is not in modules.dep");
	modlist_release(&m);
	free(err);

	/* empty modules.dep */
	assert_int_equal(resolve("", NULL, names, 1, &m, &err), -1);
	assert_contains(err, "module 'ext4' is not in modules.dep");
	modlist_release(&m);
	free(err);
}

static void test_resolve_builtin(void **state)
{
	/* crc16 and mbcache built in: depmod leaves them out of modules.dep */
	static const char dep[] =
		"kernel/fs/ext4/ext4.ko.xz: kernel/lib/crc16.ko.xz kernel/fs/mbcache.ko.xz "
		"kernel/fs/jbd2/jbd2.ko.xz\n"
		"kernel/fs/jbd2/jbd2.ko.xz:\n";
	static const char builtin[] =
		"kernel/lib/crc16.ko\n"
		"kernel/fs/mbcache.ko\n"
		"kernel/drivers/virtio/virtio-pci.ko\n"
		"kernel/drivers/block/virtio_blk.ko";
	static const char *const names[] = { "ext4", "crc16", "virtio_pci", "virtio-blk" };
	struct modlist m;
	char *err;

	(void)state;
	assert_int_equal(resolve(dep, builtin, names, 4, &m, &err), 0);
	assert_string_equal(err, "");	/* silently */
	assert_int_equal(m.n, 2);
	assert_string_equal(m.path[0], "kernel/fs/jbd2/jbd2.ko.xz");
	assert_string_equal(m.path[1], "kernel/fs/ext4/ext4.ko.xz");
	modlist_release(&m);
	free(err);

	/* without the builtin list the same modules.dep is an error */
	assert_int_equal(resolve(dep, NULL, names, 1, &m, &err), -1);
	assert_contains(err, "module 'crc16' is not in modules.dep");
	modlist_release(&m);
	free(err);
}

static void on_alarm(int sig)
{
	static const char msg[] = "not ok - dependency loop: modules_resolve hangs\n";

	(void)sig;
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(3);
	_exit(2);
}

static void test_resolve_loop(void **state)
{
	static const char *const dep[] = {
		"kernel/a.ko: kernel/b.ko\nkernel/b.ko: kernel/a.ko\n",
		"kernel/self.ko.xz: kernel/self.ko.xz\n",
		/* every module needs every other: no exponential walk either */
		"kernel/a.ko: kernel/b.ko kernel/c.ko kernel/d.ko kernel/e.ko\n"
		"kernel/b.ko: kernel/c.ko kernel/d.ko kernel/e.ko kernel/a.ko\n"
		"kernel/c.ko: kernel/d.ko kernel/e.ko kernel/a.ko kernel/b.ko\n"
		"kernel/d.ko: kernel/e.ko kernel/a.ko kernel/b.ko kernel/c.ko\n"
		"kernel/e.ko: kernel/a.ko kernel/b.ko kernel/c.ko kernel/d.ko\n",
		/* the loop is behind a module that resolves fine */
		"kernel/a.ko: kernel/leaf.ko kernel/x.ko\nkernel/leaf.ko:\n"
		"kernel/x.ko: kernel/y.ko\nkernel/y.ko: kernel/x.ko\n",
	};
	static const char *const names[] = { "a", "self", "a", "a" };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct modlist m;
	size_t i;
	char *err;

	(void)state;
	sigaction(SIGALRM, &sa, NULL);
	for (i = 0; i < sizeof(dep) / sizeof(dep[0]); i++) {
		alarm(20);
		assert_int_equal(resolve(dep[i], NULL, &names[i], 1, &m, &err), -1);
		alarm(0);
		assert_contains(err, "modules.dep: dependency loop through '");
		modlist_release(&m);
		free(err);
	}
}

static void test_resolve_too_many(void **state)
{
	char *dep = xstrdup(""), *names_buf[MODLIST_MAX + 1], *err;
	const char *names[MODLIST_MAX + 1];
	struct modlist m;
	int i;

	(void)state;
	for (i = 0; i <= MODLIST_MAX; i++) {
		char *d = xasprintf("%skernel/m/m%d.ko:\n", dep, i);

		free(dep);
		dep = d;
		names_buf[i] = xasprintf("m%d", i);
		names[i] = names_buf[i];
	}
	assert_int_equal(resolve(dep, NULL, names, MODLIST_MAX, &m, &err), 0);
	assert_int_equal(m.n, MODLIST_MAX);
	modlist_release(&m);
	free(err);
	assert_int_equal(resolve(dep, NULL, names, MODLIST_MAX + 1, &m, &err), -1);
	assert_contains(err, "more than 64 modules to load");
	assert_int_equal(m.n, MODLIST_MAX);
	modlist_release(&m);
	free(err);
	for (i = 0; i <= MODLIST_MAX; i++)
		free(names_buf[i]);
	free(dep);
}

/* the initramfs, read back */
#define ENT_MAX 64

struct ent {
	char *name;
	mode_t type, perm;
	unsigned long rmaj, rmin;
	int64_t uid, gid;
	time_t mtime;
	char *data;
	size_t len;
};

struct cpio {
	struct ent e[ENT_MAX];
	int n;
};

static void cpio_read(const char *path, int gzip, struct cpio *c)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	int r;

	memset(c, 0, sizeof(*c));
	assert_non_null(a);
	assert_int_equal(archive_read_support_format_cpio(a), ARCHIVE_OK);
	if (gzip)
		assert_int_equal(archive_read_support_filter_gzip(a), ARCHIVE_OK);
	if (archive_read_open_filename(a, path, 10240) != ARCHIVE_OK)
		fail_msg("cannot open '%s': %s", path, archive_error_string(a));
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		struct ent *e = &c->e[c->n++];
		la_ssize_t k;

		assert_true(c->n < ENT_MAX);
		e->name = xstrdup(archive_entry_pathname(ae));
		e->type = archive_entry_filetype(ae);
		e->perm = archive_entry_perm(ae);
		e->rmaj = archive_entry_rdevmajor(ae);
		e->rmin = archive_entry_rdevminor(ae);
		e->uid = archive_entry_uid(ae);
		e->gid = archive_entry_gid(ae);
		e->mtime = archive_entry_mtime(ae);
		e->len = archive_entry_size(ae);
		e->data = malloc(e->len + 1);
		assert_non_null(e->data);
		k = archive_read_data(a, e->data, e->len + 1);
		assert_int_equal(k, e->len);
	}
	if (r != ARCHIVE_EOF)
		fail_msg("reading '%s': %s", path, archive_error_string(a));
	assert_int_equal(archive_format(a), ARCHIVE_FORMAT_CPIO_SVR4_NOCRC);	/* newc */
	assert_int_equal(archive_filter_code(a, 0),
			 gzip ? ARCHIVE_FILTER_GZIP : ARCHIVE_FILTER_NONE);
	assert_int_equal(archive_read_free(a), ARCHIVE_OK);
}

static void cpio_release(struct cpio *c)
{
	int i;

	for (i = 0; i < c->n; i++) {
		free(c->e[i].name);
		free(c->e[i].data);
	}
	c->n = 0;
}

static const struct ent *cpio_find(const struct cpio *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].name, name))
			return &c->e[i];
	fail_msg("no '%s' in the initramfs", name);
	return NULL;
}

static int cpio_index(const struct cpio *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->e[i].name, name))
			return i;
	return -1;
}

static void assert_file(const struct ent *e, mode_t perm, const void *data, size_t len)
{
	assert_int_equal(e->type, AE_IFREG);
	assert_int_equal(e->perm, perm);
	assert_int_equal(e->len, len);
	assert_memory_equal(e->data, data, len);
}

/* what every initramfs holds, whatever the modules */
static void check_common(const struct cpio *c, const char *agent, size_t agent_len,
			 const char *job)
{
	static const char *const dirs[] = { "dev", "proc", "sys", "mnt", "kpair", "lib",
					    "lib/modules" };
	const struct ent *e;
	size_t i;
	int k;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		e = cpio_find(c, dirs[i]);
		assert_int_equal(e->type, AE_IFDIR);
		assert_int_equal(e->perm, 0755);
	}
	e = cpio_find(c, "init");
	assert_file(e, 0755, agent, agent_len);
	e = cpio_find(c, "dev/console");
	assert_int_equal(e->type, AE_IFCHR);
	assert_int_equal(e->rmaj, 5);
	assert_int_equal(e->rmin, 1);
	assert_int_equal(e->len, 0);
	e = cpio_find(c, "kpair/job");
	assert_file(e, 0644, job, strlen(job));
	for (k = 0; k < c->n; k++) {
		const char *slash = strrchr(c->e[k].name, '/');

		/* owned by root, reproducible times, no absolute or dot names */
		assert_int_equal(c->e[k].uid, 0);
		assert_int_equal(c->e[k].gid, 0);
		assert_int_equal(c->e[k].mtime, 0);
		assert_true(c->e[k].name[0] != '/' && c->e[k].name[0] != '.');
		assert_int_equal(cpio_index(c, c->e[k].name), k);
		/* the kernel unpacks in order: a directory before what is in it */
		if (slash) {
			char *dir = strndup(c->e[k].name, slash - c->e[k].name);
			int d = cpio_index(c, dir);

			if (d < 0 || d > k || c->e[d].type != AE_IFDIR)
				fail_msg("'%s' comes before its directory", c->e[k].name);
			free(dir);
		}
	}
}

struct fixture {
	char *dir, *agent, *moddir;
	char agent_bytes[3000];
};

static const char job_text[] = "[job]\nname = t\nworkload = smoke\n";

static int fixture_setup(void **state)
{
	static const char *const mods[] = {
		"kernel/fs/ext4/ext4.ko.xz", "kernel/fs/jbd2/jbd2.ko.xz", "kernel/fs/mbcache.ko.xz",
		"kernel/lib/crc16.ko.xz", "kernel/drivers/hid/hid-generic.ko.xz",
		"kernel/drivers/hid/hid.ko.xz",
	};
	struct fixture *f = calloc(1, sizeof(*f));
	size_t i;

	assert_non_null(f);
	f->dir = scratch_dir("t-image");
	memcpy(f->agent_bytes, "\x7f" "ELF", 4);
	for (i = 4; i < sizeof(f->agent_bytes); i++)
		f->agent_bytes[i] = (char)(i * 7 + (i >> 8));	/* NULs included */
	f->agent = scratch_write(f->dir, "agent", f->agent_bytes, sizeof(f->agent_bytes));
	f->moddir = xasprintf("%s/lib/modules/6.1.0-test", f->dir);
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		char *path = xasprintf("%s/%s", f->moddir, mods[i]), *slash = strrchr(path, '/');
		char *body = xasprintf("module %s\n", mods[i]);

		*slash = '\0';
		assert_int_equal(mkdir_p(path, 0755), 0);
		*slash = '/';
		free(scratch_write(f->dir, path + strlen(f->dir) + 1, body, strlen(body)));
		free(body);
		free(path);
	}
	*state = f;
	return 0;
}

static int fixture_teardown(void **state)
{
	struct fixture *f = *state;

	rm_rf(f->dir);
	free(f->dir);
	free(f->agent);
	free(f->moddir);
	free(f);
	return 0;
}

static char *slurp(const char *path, size_t *len)
{
	char *buf;

	assert_int_equal(read_file(path, &buf, len), 0);
	return buf;
}

static void initramfs_with_modules(void **state, int gzip)
{
	static const char *const names[] = { "ext4", "hid_generic" };
	struct fixture *f = *state;
	struct initramfs_spec spec = { 0 };
	struct modlist m;
	struct cpio c;
	char *out = xasprintf("%s/initrd%s", f->dir, gzip ? ".gz" : ""), *list = xstrdup("");
	char *raw;
	size_t len;
	int i;

	modlist_init(&m);
	assert_int_equal(modules_resolve(dep_text, NULL, names, 2, &m), 0);
	assert_int_equal(m.n, 6);
	spec.agent = f->agent;
	spec.moddir = f->moddir;
	spec.mods = &m;
	spec.job_text = job_text;
	spec.gzip = gzip;
	assert_int_equal(initramfs_write(out, &spec), 0);

	raw = slurp(out, &len);
	if (gzip)
		assert_memory_equal(raw, "\x1f\x8b", 2);
	else
		assert_memory_equal(raw, "070701", 6);	/* the newc magic the kernel wants */
	free(raw);

	cpio_read(out, gzip, &c);
	check_common(&c, f->agent_bytes, sizeof(f->agent_bytes), job_text);
	for (i = 0; i < m.n; i++) {
		const char *base = strrchr(m.path[i], '/') + 1;
		char *name = xasprintf("lib/modules/%s", base);
		char *body = xasprintf("module %s\n", m.path[i]);
		char *l = xasprintf("%s/%s\n", list, name);

		/* compressed modules keep their suffix, the agent passes the flag for .xz */
		assert_non_null(strstr(name, ".ko.xz"));
		assert_file(cpio_find(&c, name), 0644, body, strlen(body));
		free(list);
		list = l;
		free(name);
		free(body);
	}
	/* one absolute path a line, in load order */
	assert_file(cpio_find(&c, "kpair/modules"), 0644, list, strlen(list));
	assert_int_equal(c.n, 7 + 1 + 1 + m.n + 2);
	cpio_release(&c);
	modlist_release(&m);
	free(list);
	free(out);
}

static void test_initramfs_plain(void **state)
{
	initramfs_with_modules(state, 0);
}

static void test_initramfs_gzip(void **state)
{
	initramfs_with_modules(state, 1);
}

static void test_initramfs_no_modules(void **state)
{
	struct fixture *f = *state;
	struct initramfs_spec spec = { .agent = f->agent, .job_text = "" };
	char *out = xasprintf("%s/initrd-nomods", f->dir);
	struct modlist m;
	struct cpio c;
	int pass, i;

	/* no module list, then an empty one: the same archive */
	modlist_init(&m);
	for (pass = 0; pass < 2; pass++) {
		if (pass) {
			spec.mods = &m;
			spec.moddir = f->moddir;
		}
		assert_int_equal(initramfs_write(out, &spec), 0);
		cpio_read(out, 0, &c);
		check_common(&c, f->agent_bytes, sizeof(f->agent_bytes), "");
		assert_int_equal(cpio_find(&c, "kpair/modules")->len, 0);
		for (i = 0; i < c.n; i++)
			assert_false(!strncmp(c.e[i].name, "lib/modules/", 12));
		assert_int_equal(c.n, 7 + 1 + 1 + 2);
		cpio_release(&c);
	}
	free(out);
}

static void test_initramfs_reproducible(void **state)
{
	static const char *const names[] = { "ext4" };
	struct fixture *f = *state;
	struct initramfs_spec spec = { 0 };
	char *a = xasprintf("%s/initrd-a", f->dir), *b = xasprintf("%s/initrd-b", f->dir);
	char *da, *db;
	size_t la, lb;
	struct modlist m;

	modlist_init(&m);
	assert_int_equal(modules_resolve(dep_text, NULL, names, 1, &m), 0);
	spec.agent = f->agent;
	spec.moddir = f->moddir;
	spec.mods = &m;
	spec.job_text = job_text;
	assert_int_equal(initramfs_write(a, &spec), 0);
	assert_int_equal(initramfs_write(b, &spec), 0);
	da = slurp(a, &la);
	db = slurp(b, &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(da, db, la);
	free(da);
	free(db);
	free(a);
	free(b);
	modlist_release(&m);
}

static void test_initramfs_errors(void **state)
{
	static const char *const names[] = { "xfs" };	/* not in the fixture's moddir */
	struct fixture *f = *state;
	struct initramfs_spec spec = { .job_text = job_text };
	char *out = xasprintf("%s/initrd-bad", f->dir), *missing, *err;
	struct capture cap;
	struct modlist m;

	/* no agent binary */
	missing = xasprintf("%s/no-agent", f->dir);
	spec.agent = missing;
	capture_start(&cap);
	assert_int_equal(initramfs_write(out, &spec), -1);
	err = capture_end(&cap);
	assert_contains(err, missing);
	assert_false(path_exists(out));	/* no half-written archive left */
	free(err);
	free(missing);

	/* a module file missing */
	modlist_init(&m);
	assert_int_equal(modules_resolve(dep_text, NULL, names, 1, &m), 0);
	spec.agent = f->agent;
	spec.moddir = f->moddir;
	spec.mods = &m;
	capture_start(&cap);
	assert_int_equal(initramfs_write(out, &spec), -1);
	err = capture_end(&cap);
	assert_contains(err, "lib/modules/6.1.0-test/kernel/lib/libcrc32c.ko.xz");
	assert_false(path_exists(out));
	free(err);
	modlist_release(&m);
	free(out);

	/* nowhere to write */
	out = xasprintf("%s/no/such/dir/initrd", f->dir);
	spec.mods = NULL;
	capture_start(&cap);
	assert_int_equal(initramfs_write(out, &spec), -1);
	err = capture_end(&cap);
	assert_contains(err, "cannot write initramfs");
	free(err);
	free(out);
}

/* brd's parameters ride on its kpair/modules line; a module not in the list takes none */
static void test_initramfs_module_args(void **state)
{
	static const char *const names[] = { "ext4" };
	struct fixture *f = *state;
	struct initramfs_spec spec = { 0 };
	char *out = xasprintf("%s/initrd-args", f->dir);
	const struct ent *e;
	struct modlist m;
	struct cpio c;

	modlist_init(&m);
	assert_int_equal(modules_resolve(dep_text, NULL, names, 1, &m), 0);
	assert_int_equal(modlist_set_args(&m, "crc16", "rd_nr=1 rd_size=2048"), 1);
	assert_int_equal(modlist_set_args(&m, "crc16", "x=2"), 1);	/* replaces */
	assert_int_equal(modlist_set_args(&m, "brd", "rd_nr=1"), 0);
	spec.agent = f->agent;
	spec.moddir = f->moddir;
	spec.mods = &m;
	spec.job_text = job_text;
	assert_int_equal(initramfs_write(out, &spec), 0);
	cpio_read(out, 0, &c);
	e = cpio_find(&c, "kpair/modules");
	assert_non_null(e);
	assert_non_null(memmem(e->data, e->len, "/lib/modules/crc16.ko.xz x=2\n", 29));
	assert_non_null(memmem(e->data, e->len, "/lib/modules/ext4.ko.xz\n", 24));
	cpio_release(&c);
	modlist_release(&m);
	free(out);
}

static void put_block(int fd, off_t off)
{
	char b[4096];

	memset(b, 0x5a, sizeof(b));
	assert_int_equal(pwrite(fd, b, sizeof(b), off), (ssize_t)sizeof(b));
}

/* disk.backing=ram's copy list: data extents, near ones joined, holes skipped */
static void test_disk_extents(void **state)
{
	struct fixture *f = *state;
	char *img = xasprintf("%s/sparse.img", f->dir), *text;
	uint64_t data;
	int fd = open(img, O_RDWR | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 20 << 20), 0);
	/* all holes: nothing to copy */
	assert_int_equal(disk_extents(img, 64 << 10, 16, &text, &data), 0);
	assert_string_equal(text, "");
	assert_int_equal(data, 0);
	free(text);
	put_block(fd, 0);
	put_block(fd, 1 << 20);
	put_block(fd, (1 << 20) + 8192);	/* 4 KiB after the last: joined */
	put_block(fd, (20 << 20) - 4096);	/* the last block */
	assert_int_equal(fsync(fd), 0);
	assert_int_equal(disk_extents(img, 64 << 10, 16, &text, &data), 0);
	assert_string_equal(text, "ram_extent=0+4096\n"
			    "ram_extent=1048576+12288\n"
			    "ram_extent=20967424+4096\n");
	assert_int_equal(data, 4096 + 12288 + 4096);
	free(text);
	/* no joining: four extents, and a limit of three refuses them */
	assert_int_equal(disk_extents(img, 0, 16, &text, &data), 0);
	assert_int_equal(data, 4 * 4096);
	free(text);
	assert_int_equal(disk_extents(img, 0, 3, &text, &data), -1);
	assert_non_null(strstr(error_last(), "more than 3 data extents"));
	close(fd);
	unlink(img);
	assert_int_equal(disk_extents(img, 0, 3, &text, &data), -1);
	assert_non_null(strstr(error_last(), "cannot open"));
	free(img);
}

static void check_argv(char **argv, const char *const *want)
{
	int i;

	for (i = 0; want[i]; i++) {
		if (!argv[i])
			fail_msg("argv ends at %d, expected '%s'", i, want[i]);
		assert_string_equal(argv[i], want[i]);
	}
	if (argv[i])
		fail_msg("unexpected argv[%d] '%s'", i, argv[i]);
}

static void test_mkfs_argv(void **state)
{
	static const char *const ext4[] = {
		"mkfs.ext4", "-F", "-q", "-b", "4096", "-O", "^has_journal", "-E",
		"lazy_itable_init=0,lazy_journal_init=0", "/tmp/d.img", NULL,
	};
	static const char *const ext2[] = { "mkfs.ext2", "-F", "-q", "-b", "1024", "x.img", NULL };
	static const char *const xfs[] = {
		"mkfs.xfs", "-f", "-q", "-b", "size=65536", "-m", "crc=1,reflink=1", "-l",
		"size=64m", "/dev/shm/disk", NULL,
	};
	static const char *const xfs_plain[] = {
		"mkfs.xfs", "-f", "-q", "-b", "size=4096", "d", NULL,
	};
	char **argv;
	char *many = xstrdup("");
	int i, n;

	(void)state;
	argv = mkfs_argv("ext4", 4096, " -O ^has_journal  -E\t"
			 "lazy_itable_init=0,lazy_journal_init=0 ", "/tmp/d.img");
	check_argv(argv, ext4);
	free_argv(argv);
	argv = mkfs_argv("ext2", 1024, "", "x.img");
	check_argv(argv, ext2);
	free_argv(argv);
	argv = mkfs_argv("xfs", 65536, "-m crc=1,reflink=1 -l size=64m", "/dev/shm/disk");
	check_argv(argv, xfs);
	free_argv(argv);
	argv = mkfs_argv("xfs", 4096, NULL, "d");
	check_argv(argv, xfs_plain);
	free_argv(argv);
	free_argv(NULL);

	/* more options than argv holds: bounded, and the image path stays last */
	for (i = 0; i < 100; i++) {
		char *s = xasprintf("%s -o%d", many, i);

		free(many);
		many = s;
	}
	argv = mkfs_argv("ext4", 4096, many, "last.img");
	for (n = 0; argv[n]; n++)
		;
	assert_true(n < 64);
	assert_string_equal(argv[n - 1], "last.img");
	assert_string_equal(argv[5], "-o0");
	free_argv(argv);
	free(many);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_ext4),
		cmocka_unit_test(test_resolve_chain),
		cmocka_unit_test(test_resolve_many),
		cmocka_unit_test(test_resolve_twice_appends),
		cmocka_unit_test(test_resolve_missing),
		cmocka_unit_test(test_resolve_builtin),
		cmocka_unit_test(test_resolve_loop),
		cmocka_unit_test(test_resolve_too_many),
		cmocka_unit_test_setup_teardown(test_initramfs_plain, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_initramfs_gzip, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_initramfs_no_modules, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_initramfs_reproducible, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_initramfs_errors, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_initramfs_module_args, fixture_setup,
						fixture_teardown),
		cmocka_unit_test_setup_teardown(test_disk_extents, fixture_setup, fixture_teardown),
		cmocka_unit_test(test_mkfs_argv),
	};

	return cmocka_run_group_tests_name("image", tests, NULL, NULL);
}
