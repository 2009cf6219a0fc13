/*
 * t-kconfig.c - unit tests of forcing kpair's required options onto a
 * developer's whole .config (harness/kernels/kconfig.c): what is met stays as it is
 * (a module where kpair loads modules is enough), what is not is forced and
 * recorded with its old value, the forced options' old lines are dropped,
 * and what olddefconfig dropped again is reported.
 */
#include "unit.h"

#include "kernels/kconfig.h"

static const char user[] =
	"#\n# Automatically generated file; DO NOT EDIT.\n#\n"
	"CONFIG_64BIT=y\n"
	"CONFIG_EXT4_FS=m\n"
	"CONFIG_VIRTIO_BLK=m\n"
	"CONFIG_SERIAL_8250=m\n"
	"# CONFIG_PVH is not set\n"
	"CONFIG_NR_CPUS=64\n"
	"CONFIG_SYSTEM_TRUSTED_KEYS=\"debian/certs/x.pem\"\n"
	"CONFIG_PVH_EXTRA=y\n";

static const char required[] =
	"# a fragment\n"
	"CONFIG_64BIT=y\n"
	"CONFIG_EXT4_FS=y\n"
	"CONFIG_VIRTIO_BLK=y\n"
	"CONFIG_SERIAL_8250=y\n"
	"CONFIG_PVH=y\n"
	"CONFIG_DEVTMPFS=y\n"
	"CONFIG_SYSTEM_TRUSTED_KEYS=\"\"\n"
	"# CONFIG_NR_CPUS is not set\n";

static json_t *find(json_t *forced, const char *opt)
{
	size_t i;
	json_t *f;

	json_array_foreach(forced, i, f)
		if (!strcmp(json_string_value(json_object_get(f, "option")), opt))
			return f;
	return NULL;
}

static void test_get(void **state)
{
	char v[64];

	(void)state;
	assert_int_equal(kconfig_get(user, "EXT4_FS", v, sizeof(v)), 1);
	assert_string_equal(v, "m");
	assert_int_equal(kconfig_get(user, "NR_CPUS", v, sizeof(v)), 1);
	assert_string_equal(v, "64");
	assert_int_equal(kconfig_get(user, "PVH", v, sizeof(v)), 0);	/* is not set */
	assert_int_equal(kconfig_get(user, "DEVTMPFS", v, sizeof(v)), 0);	/* absent */
	/* a prefix of another option's name is not that option */
	assert_int_equal(kconfig_get("CONFIG_PVH_EXTRA=y\n", "PVH", v, sizeof(v)), 0);
	assert_int_equal(kconfig_get(user, "SYSTEM_TRUSTED_KEYS", v, sizeof(v)), 1);
	assert_string_equal(v, "\"debian/certs/x.pem\"");
}

static void test_force(void **state)
{
	json_t *forced = NULL, *f;
	char *merged, v[64];

	(void)state;
	merged = kconfig_force(user, required, &forced);
	assert_non_null(merged);
	/* met: y as y, a module kpair loads as m; not met: the rest */
	assert_null(find(forced, "64BIT"));
	assert_null(find(forced, "EXT4_FS"));
	assert_null(find(forced, "VIRTIO_BLK"));
	f = find(forced, "SERIAL_8250");	/* the console: a module is not enough */
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "was")), "m");
	assert_string_equal(json_string_value(json_object_get(f, "now")), "y");
	f = find(forced, "PVH");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "was")), "n");
	f = find(forced, "DEVTMPFS");
	assert_non_null(f);
	assert_true(json_is_null(json_object_get(f, "was")));
	f = find(forced, "NR_CPUS");
	assert_non_null(f);
	assert_string_equal(json_string_value(json_object_get(f, "now")), "n");
	assert_non_null(find(forced, "SYSTEM_TRUSTED_KEYS"));
	assert_int_equal(json_array_size(forced), 5);
	/* the merged text: one line per forced option, the user's other lines kept */
	assert_int_equal(kconfig_get(merged, "SERIAL_8250", v, sizeof(v)), 1);
	assert_string_equal(v, "y");
	assert_null(strstr(merged, "CONFIG_SERIAL_8250=m"));
	assert_null(strstr(merged, "# CONFIG_PVH is not set"));
	assert_non_null(strstr(merged, "CONFIG_PVH=y\n"));
	assert_non_null(strstr(merged, "CONFIG_PVH_EXTRA=y\n"));
	assert_non_null(strstr(merged, "CONFIG_EXT4_FS=m\n"));
	assert_non_null(strstr(merged, "# CONFIG_NR_CPUS is not set\n"));
	assert_null(strstr(merged, "CONFIG_NR_CPUS=64"));
	assert_non_null(strstr(merged, "CONFIG_SYSTEM_TRUSTED_KEYS=\"\"\n"));
	assert_non_null(strstr(merged, "Automatically generated"));
	/* forcing again changes nothing more */
	json_decref(forced);
	free(kconfig_force(merged, required, &forced));
	assert_int_equal(json_array_size(forced), 0);
	json_decref(forced);
	free(merged);
}

static void test_unmet(void **state)
{
	json_t *u;

	(void)state;
	/* olddefconfig dropped PVH (its dependency is off) and made ext4 a module */
	u = kconfig_unmet("CONFIG_64BIT=y\nCONFIG_EXT4_FS=m\nCONFIG_VIRTIO_BLK=y\n"
			  "CONFIG_SERIAL_8250=y\nCONFIG_DEVTMPFS=y\nCONFIG_SYSTEM_TRUSTED_KEYS=\"\"\n",
			  required);
	assert_int_equal(json_array_size(u), 1);
	assert_string_equal(json_string_value(json_array_get(u, 0)), "CONFIG_PVH=y");
	json_decref(u);
	u = kconfig_unmet(user, required);
	assert_int_equal(json_array_size(u), 5);
	json_decref(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_unmet),
	};

	return cmocka_run_group_tests_name("kconfig", tests, NULL, NULL);
}
