/*
 * libvirt-remote.c - a libvirt host that does not share our files: volumes
 * up, streams back. Everything goes through the libvirt connection (remote
 * driver, qemu+ssh:// or qemu+unix://), never scp: the files a run needs are
 * uploaded into the host's "kpair" directory pool (created on first use) and
 * deleted after the run; the scratch disk goes as a sparse stream, so only
 * the blocks mkfs wrote travel. The console and the results channel are read
 * from streams with libvirt's default event loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvirt-remote.h"

static const char *lv_err(void)
{
	virErrorPtr e = virGetLastError();

	return e && e->message ? e->message : "unknown libvirt error";
}

void lv_stage_init(struct lv_stage *st)
{
	memset(st, 0, sizeof(*st));
}

void lv_stage_release(struct lv_stage *st)
{
	int i;

	for (i = 0; i < st->n; i++) {
		if (st->vols[i]) {
			if (virStorageVolDelete(st->vols[i], 0) < 0)
				warning("libvirt: cannot delete volume '%s': %s",
					st->paths[i] ? st->paths[i] : "?", lv_err());
			virStorageVolFree(st->vols[i]);
		}
		free(st->paths[i]);
	}
	if (st->pool)
		virStoragePoolFree(st->pool);
	lv_stage_init(st);
}

/* the host's kpair pool, defined, built and started the first time */
static virStoragePoolPtr pool_get(virConnectPtr conn)
{
	static const char xml[] = "<pool type='dir'><name>" LV_POOL "</name>"
				  "<target><path>" LV_POOL_DIR "</path></target></pool>";
	virStoragePoolPtr p = virStoragePoolLookupByName(conn, LV_POOL);
	int tries;

	for (tries = 0; !p && tries < 5; tries++) {
		p = virStoragePoolDefineXML(conn, xml, 0);
		if (p && virStoragePoolBuild(p, 0) < 0)
			warning("libvirt: building pool '%s': %s", LV_POOL, lv_err());
		if (!p)	/* another kpair defined it first */
			p = virStoragePoolLookupByName(conn, LV_POOL);
	}
	if (!p) {
		error("libvirt: no storage pool '%s' and cannot define it: %s", LV_POOL, lv_err());
		return NULL;
	}
	if (virStoragePoolIsActive(p) != 1 && virStoragePoolCreate(p, 0) < 0 &&
	    virStoragePoolIsActive(p) != 1) {
		error("libvirt: cannot start storage pool '%s': %s", LV_POOL, lv_err());
		virStoragePoolFree(p);
		return NULL;
	}
	virStoragePoolSetAutostart(p, 1);
	return p;
}

struct up {
	int fd;
	unsigned long long sent;
};

static int up_source(virStreamPtr st, char *data, size_t n, void *opaque)
{
	struct up *u = opaque;
	ssize_t r;

	(void)st;
	do
		r = read(u->fd, data, n);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		u->sent += r;
	return (int)r;
}

/* where the data is: as virsh vol-upload --sparse does it, with SEEK_DATA/SEEK_HOLE */
static int up_in_data(virStreamPtr st, int *in_data, long long *len, void *opaque)
{
	struct up *u = opaque;
	off_t cur = lseek(u->fd, 0, SEEK_CUR), data, end;

	(void)st;
	if (cur < 0)
		return -1;
	data = lseek(u->fd, cur, SEEK_DATA);
	if (data < 0 && errno != ENXIO)
		return -1;
	if (data < 0) {			/* a hole to the end */
		end = lseek(u->fd, 0, SEEK_END);
		*in_data = 0;
		*len = end - cur;
	} else if (data > cur) {
		*in_data = 0;
		*len = data - cur;
	} else {
		*in_data = 1;
		*len = lseek(u->fd, cur, SEEK_HOLE) - cur;
	}
	return lseek(u->fd, cur, SEEK_SET) < 0 ? -1 : 0;
}

static int up_skip(virStreamPtr st, long long off, void *opaque)
{
	struct up *u = opaque;

	(void)st;
	return lseek(u->fd, off, SEEK_CUR) < 0 ? -1 : 0;
}

/* one file into a new volume @name of the pool */
static int upload_one(struct lv_stage *stg, virConnectPtr conn, const char *name,
		      const char *file, int sparse)
{
	struct up u = { .fd = -1 };
	virStorageVolPtr old, vol = NULL;
	virStreamPtr st = NULL;
	struct text x = { 0 };
	struct stat sb;
	int ret = -1;

	u.fd = open(file, O_RDONLY | O_CLOEXEC);
	if (u.fd < 0 || fstat(u.fd, &sb) < 0) {
		error("cannot read '%s' to upload: %s", file, strerror(errno));
		goto out;
	}
	old = virStorageVolLookupByName(stg->pool, name);	/* a killed run's */
	if (old) {
		virStorageVolDelete(old, 0);
		virStorageVolFree(old);
	}
	text_add(&x, "<volume><name>");
	text_esc(&x, name);
	text_add(&x, "</name><capacity unit='bytes'>%lld</capacity><allocation>0</allocation>"
		   "<target><format type='raw'/></target></volume>", (long long)sb.st_size);
	vol = virStorageVolCreateXML(stg->pool, x.s, 0);
	if (!vol) {
		error("libvirt: cannot create volume '%s': %s", name, lv_err());
		goto out;
	}
	stg->vols[stg->n] = vol;
	stg->paths[stg->n] = virStorageVolGetPath(vol);
	stg->n++;
	st = virStreamNew(conn, 0);
	if (!st || virStorageVolUpload(vol, st, 0, sb.st_size,
				       sparse ? VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM : 0) < 0) {
		error("libvirt: cannot upload '%s' to volume '%s': %s", file, name, lv_err());
		goto out;
	}
	if ((sparse ? virStreamSparseSendAll(st, up_source, up_in_data, up_skip, &u)
		    : virStreamSendAll(st, up_source, &u)) < 0 || virStreamFinish(st) < 0) {
		error("libvirt: uploading '%s' to volume '%s' failed: %s", file, name, lv_err());
		virStreamAbort(st);
		goto out;
	}
	if (!stg->paths[stg->n - 1]) {
		error("libvirt: volume '%s' has no path: %s", name, lv_err());
		goto out;
	}
	stg->bytes += u.sent;
	ret = 0;
out:
	if (st)
		virStreamFree(st);
	if (u.fd >= 0)
		close(u.fd);
	free(x.s);
	return ret;
}

int lv_stage_upload(struct lv_stage *st, virConnectPtr conn, const char *prefix,
		    const struct vm_spec *s)
{
	static const char *const what[2] = { "kernel", "initrd" };
	double t0 = mono_now();
	int i;

	st->pool = pool_get(conn);
	if (!st->pool)
		return -1;
	for (i = 0; i < 2 + s->ndisks; i++) {
		char *name = i < 2 ? xasprintf("%s-%s", prefix, what[i])
				   : xasprintf("%s-disk%d.img", prefix, i - 2);
		const char *file = i == 0 ? s->kernel : i == 1 ? s->initrd : s->disks[i - 2].path;
		int r = upload_one(st, conn, name, file, i >= 2);

		free(name);
		if (r < 0)
			return -1;
	}
	st->upload_s = mono_now() - t0;
	return 0;
}

/* the streams' side of the watch: [0] console, [1] results */
struct sw {
	virStreamPtr st[2];
	int open[2];
	struct channel *ch;
	struct vm_result *res;
	struct text *con;
	int log_fd;
	int failed;
};

static void sw_close(struct sw *w, int i)
{
	if (!w->open[i])
		return;
	w->open[i] = 0;
	virStreamEventRemoveCallback(w->st[i]);
	virStreamFinish(w->st[i]);
	if (i)
		channel_end(w->ch);
}

static void sw_event(virStreamPtr st, int events, void *opaque)
{
	struct sw *w = opaque;
	int i = st == w->st[1];
	char buf[16384];

	if (!w->open[i])
		return;
	for (;;) {
		int n = virStreamRecv(st, buf, sizeof(buf));

		if (n == -2)	/* drained for now */
			break;
		if (n <= 0) {
			sw_close(w, i);
			return;
		}
		if (i) {
			channel_feed(w->ch, buf, n);
			continue;
		}
		if (w->res->first_console < 0)
			w->res->first_console = mono_now() - w->res->t_start;
		if (w->log_fd >= 0 && write(w->log_fd, buf, n) < 0)
			w->log_fd = -1;
		text_add(w->con, "%.*s", n, buf);
	}
	if (events & (VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR))
		sw_close(w, i);
}

static void tick(int timer, void *opaque)
{
	(void)timer;
	(void)opaque;	/* wakes the loop so deadlines are checked */
}

int lv_stream_watch(virConnectPtr conn, virDomainPtr dom, const struct vm_spec *s,
		    struct channel *ch, struct vm_result *res, int log_fd, struct text *con,
		    int *timed_out)
{
	struct sw w = { .ch = ch, .res = res, .con = con, .log_fd = log_fd };
	double deadline, grace = -1;
	int i, timer = -1, ret = -1;

	for (i = 0; i < 2; i++) {
		w.st[i] = virStreamNew(conn, VIR_STREAM_NONBLOCK);
		if (!w.st[i])
			goto out;
	}
	if (virDomainOpenConsole(dom, NULL, w.st[0], VIR_DOMAIN_CONSOLE_FORCE) < 0) {
		error("libvirt: cannot open the console: %s", lv_err());
		goto out;
	}
	if (virDomainOpenChannel(dom, "org.kpair.results", w.st[1], VIR_DOMAIN_CHANNEL_FORCE) < 0) {
		error("libvirt: cannot open channel org.kpair.results: %s", lv_err());
		goto out;
	}
	for (i = 0; i < 2; i++) {
		if (virStreamEventAddCallback(w.st[i], VIR_STREAM_EVENT_READABLE |
					      VIR_STREAM_EVENT_HANGUP | VIR_STREAM_EVENT_ERROR,
					      sw_event, &w, NULL) < 0) {
			error("libvirt: cannot watch a stream: %s", lv_err());
			goto out;
		}
		w.open[i] = 1;
	}
	timer = virEventAddTimeout(50, tick, NULL, NULL);
	res->t_start = mono_now();
	if (virDomainResume(dom) < 0) {
		error("libvirt: cannot resume the domain: %s", lv_err());
		goto out_timer;
	}
	deadline = res->t_start + s->boot_timeout;
	while ((w.open[0] || w.open[1]) && !ch->failed) {
		double now = mono_now();

		if (vm_deadline(s, ch, res, now, &deadline, &grace, timed_out))
			break;
		if (virDomainIsActive(dom) != 1) {	/* gone: take what is left, then stop */
			for (i = 0; i < 2; i++)
				if (w.open[i])
					sw_event(w.st[i], VIR_STREAM_EVENT_HANGUP, &w);
			break;
		}
		if (virEventRunDefaultImpl() < 0) {
			error("libvirt: event loop: %s", lv_err());
			break;
		}
	}
	ret = 0;
out_timer:
	if (timer >= 0)
		virEventRemoveTimeout(timer);
out:
	for (i = 0; i < 2; i++) {
		if (w.open[i]) {
			virStreamEventRemoveCallback(w.st[i]);
			virStreamAbort(w.st[i]);
			if (i)
				channel_end(ch);
		}
		if (w.st[i])
			virStreamFree(w.st[i]);
	}
	return ret;
}
