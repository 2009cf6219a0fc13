/*
 * yaml.h - the YAML text kpair writes for LAVA (the lava backend's jobs, the
 * LAVA export's job and device): quoted scalars, list items, file:// URLs
 */
#ifndef KPAIR_YAML_H
#define KPAIR_YAML_H

struct text;

/* @s as a YAML single-quoted scalar (only ' is special in it: doubled), appended to @t */
void yaml_str(struct text *t, const char *s);
/* "<indent>- '<printf text>'\n": one item of a list of strings */
void yaml_item(struct text *t, int indent, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "file:///<path>" of absolute @path, percent-encoded where not unreserved or '/'; caller frees */
char *file_url(const char *path);

#endif
