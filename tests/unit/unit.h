/*
 * unit.h - helpers shared by the cmocka unit tests in tests/unit: capturing
 * what the code under test prints on stderr, scratch directories and files.
 * Header-only (static functions) because the Makefile links each t-*.c alone.
 */
#ifndef KPAIR_TEST_UNIT_H
#define KPAIR_TEST_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

/* stderr redirected to a temp file between capture_start and capture_end */
struct capture {
	FILE *tmp;
	int saved;
};

static inline void capture_start(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(2);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), 2) >= 0);
}

/* restore stderr; returns what was printed (malloc'd, NUL-terminated) */
static inline char *capture_end(struct capture *c)
{
	char *text;
	long n;

	fflush(stderr);
	assert_true(dup2(c->saved, 2) >= 0);
	close(c->saved);
	assert_int_equal(fseek(c->tmp, 0, SEEK_END), 0);
	n = ftell(c->tmp);
	assert_true(n >= 0);
	rewind(c->tmp);
	text = malloc(n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, n, c->tmp), (size_t)n);
	text[n] = '\0';
	fclose(c->tmp);
	return text;
}

/* fail, showing both strings, unless @needle occurs in @hay */
#define assert_contains(hay, needle)							\
	do {										\
		const char *h_ = (hay), *n_ = (needle);					\
		if (!h_ || !strstr(h_, n_))						\
			fail_msg("expected \"%s\" in \"%s\"", n_, h_ ? h_ : "(null)");	\
	} while (0)

/* a fresh directory under $TMPDIR (or /tmp); caller frees the name */
static inline char *scratch_dir(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	assert_true(asprintf(&dir, "%s/kpair-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", tag) > 0);
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* write @len bytes to @dir/@name; returns the path (caller frees) */
static inline char *scratch_write(const char *dir, const char *name, const void *data,
				  size_t len)
{
	char *path;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

#endif
