/*
 * pool.c - a kernel package taken from the mirror's pool when apt cannot read its
 * architecture's index.
 *
 * A mirror in the middle of a sync can serve one architecture's Packages file at a size
 * its signed Release does not list; apt then drops that index and "cannot locate" the
 * package (seen for bookworm-security i386 for days). The package itself is in the pool,
 * next to the same ABI's package for an architecture whose index apt did read: that
 * sibling's URI gives the pool folder and the version, the file is fetched with apt's own
 * downloader (apt-helper, apt's proxy settings), and its control fields must name exactly
 * the package, version and architecture asked for. kernel.json records the URL and that
 * no signed index vouched for the file.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/kernel.h"
#include "spawn.h"
#include "util.h"

#define APT_HELPER "/usr/lib/apt/apt-helper"

/* the URI apt would fetch @pkgarg from, or NULL when apt does not know it (quiet) */
static char *apt_uri(const char *pkgarg, const char *dir)
{
	const char *argv[] = { "apt-get", "download", "--print-uris", "-q", pkgarg, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	char *uri = NULL, *q;

	/* a line: 'http://.../pool/.../name_version_arch.deb' name_version_arch.deb size hash */
	if (spawn_run_in(argv, dir, 120000, &r) == 0 && r.exit_code == 0 && r.out &&
	    r.out[0] == '\'' && (q = strchr(r.out + 1, '\'')))
		uri = xasprintf("%.*s", (int)(q - r.out - 1), r.out + 1);
	spawn_result_release(&r);
	return uri;
}

/* @uri's version, when its file is @pkg_<version>_@arch.deb (caller frees) */
static char *uri_version(const char *uri, const char *pkg, const char *arch)
{
	const char *base = strrchr(uri, '/');
	char *tail = xasprintf("_%s.deb", arch);
	size_t n = strlen(pkg), bl, tl = strlen(tail);
	char *v = NULL;

	base = base ? base + 1 : uri;
	bl = strlen(base);
	if (!strncmp(base, pkg, n) && base[n] == '_' && bl > n + 1 + tl &&
	    !strcmp(base + bl - tl, tail) && !strchr(base + n + 1, '%'))
		v = xasprintf("%.*s", (int)(bl - n - 1 - tl), base + n + 1);
	free(tail);
	return v;
}

static int check_field(const char *deb, const char *field, const char *want)
{
	const char *argv[] = { "dpkg-deb", "-f", deb, field, NULL };
	struct spawn_result r = SPAWN_RESULT_INIT;
	int ret = spawn_checked(argv, NULL, 60000, &r);

	if (!ret && strncmp(r.out, want, strlen(want)))
		ret = error("%s: %s is '%.*s', not '%s': not the package asked for", deb, field,
			    (int)strcspn(r.out, "\n"), r.out, want);
	spawn_result_release(&r);
	return ret;
}

int pool_fetch(const char *release, const char *pkg, const char *arch, const char *dir,
	       char **url)
{
	const char *flavour = kernel_flavour(release);
	char *abi, *sib = NULL, *sibarg = NULL, *uri = NULL, *version = NULL, *deb = NULL;
	struct spawn_result r = SPAWN_RESULT_INIT;
	size_t i;
	int ret = -1;

	if (!flavour)
		return error("kernel '%s': unknown flavour", release);
	abi = xasprintf("%.*s", (int)(strlen(release) - strlen(flavour)), release);
	for (i = 0; !uri && kflavours[i].flavour; i++) {
		if (!strcmp(kflavours[i].flavour, flavour))
			continue;
		free(sib);
		free(sibarg);
		sib = xasprintf("linux-image-%s%s-unsigned", abi, kflavours[i].flavour);
		sibarg = xasprintf("%s:%s", sib, kflavours[i].arch);
		uri = apt_uri(sibarg, dir);
		if (uri && !(version = uri_version(uri, sib, kflavours[i].arch))) {
			free(uri);
			uri = NULL;
		}
	}
	if (!uri) {
		error("%s: not in any package index apt read, nor the same ABI %s for another "
		      "flavour (the pool folder and version come from it)", pkg, abi);
		goto out;
	}
	*url = xasprintf("%.*s/%s_%s_%s.deb", (int)(strrchr(uri, '/') - uri), uri, pkg,
			 version, arch);
	deb = xasprintf("%s/%s_%s_%s.deb", dir, pkg, version, arch);
	warning("kernel: %s: its index cannot be read (a mirror mid-sync?): taking it from "
		"the pool, beside %s %s: %s", pkg, sib, version, *url);
	{
		const char *argv[] = { APT_HELPER, "download-file", *url, deb, NULL };

		if (spawn_checked(argv, dir, 1800000, &r) < 0)
			goto out_url;
	}
	if (check_field(deb, "Package", pkg) < 0 || check_field(deb, "Version", version) < 0 ||
	    check_field(deb, "Architecture", arch) < 0) {
		unlink(deb);
		goto out_url;
	}
	ret = 0;
	goto out;
out_url:
	free(*url);
	*url = NULL;
out:
	spawn_result_release(&r);
	free(deb);
	free(version);
	free(uri);
	free(sibarg);
	free(sib);
	free(abi);
	return ret;
}
