/* test_file.c -- atomic output files: temporary + rename, direct writes to
 * devices, errors reported, nothing half-written under the final name. */
#include "sbw_test.h"

#include "sbw_error.h"
#include "sbw_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void read_all(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

static int count_temps(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -c '\\.tmp\\.' >/dev/null", sbw_test_path(""));
    return system(cmd) == 0;
}

static void test_commit_creates_and_replaces(void **state)
{
    (void)state;
    char path[512], buf[64];
    snprintf(path, sizeof path, "%s", sbw_test_path("out.txt"));
    sbw_file f;
    SBW_ASSERT_OK(sbw_file_create(&f, path));
    assert_non_null(f.tmp);
    assert_int_equal(access(path, F_OK), -1); /* not there until commit */
    SBW_ASSERT_OK(sbw_file_write(&f, "first", 5));
    SBW_ASSERT_OK(sbw_file_commit(&f));
    read_all(path, buf, sizeof buf);
    assert_string_equal(buf, "first");
    struct stat sb;
    stat(path, &sb);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(sb.st_mode & 0777, 0666 & ~mask);
    /* an aborted rewrite keeps the old content */
    SBW_ASSERT_OK(sbw_file_create(&f, path));
    SBW_ASSERT_OK(sbw_file_write(&f, "second", 6));
    sbw_file_abort(&f);
    read_all(path, buf, sizeof buf);
    assert_string_equal(buf, "first");
    SBW_ASSERT_OK(sbw_file_create(&f, path));
    fprintf(f.fp, "third");
    SBW_ASSERT_OK(sbw_file_commit(&f));
    read_all(path, buf, sizeof buf);
    assert_string_equal(buf, "third");
    assert_false(count_temps());
    sbw_file_abort(&f); /* after commit: harmless */
}

static void test_devices_and_errors(void **state)
{
    (void)state;
    sbw_file f;
    SBW_ASSERT_OK(sbw_file_create(&f, "/dev/full"));
    assert_null(f.tmp);                        /* a device is written directly */
    SBW_ASSERT_OK(sbw_file_write(&f, "x", 1)); /* buffered */
    assert_int_equal(sbw_file_commit(&f), SBW_EIO);
    assert_non_null(strstr(sbw_error_reason(), "No space left"));
    assert_int_equal(sbw_file_create(&f, "/no/such/dir/out.txt"), SBW_EIO);
    assert_null(f.fp);
    assert_int_equal(sbw_file_create(&f, ""), SBW_EINVAL);
    SBW_ASSERT_OK(sbw_file_create(&f, "-"));
    assert_true(f.is_stdout && f.fp == stdout);
    SBW_ASSERT_OK(sbw_file_commit(&f));
    assert_true(fputs("", stdout) >= 0); /* stdout still open */
    assert_true(sbw_file_is_std("-") && !sbw_file_is_std("x"));
}

/* Writing through a symbolic link replaces the file it points to. */
static void test_symlink_target_replaced(void **state)
{
    (void)state;
    char target[512], link[512], buf[64];
    snprintf(target, sizeof target, "%s", sbw_test_path("target.txt"));
    snprintf(link, sizeof link, "%s", sbw_test_path("link.txt"));
    sbw_file f;
    SBW_ASSERT_OK(sbw_file_create(&f, target));
    SBW_ASSERT_OK(sbw_file_write(&f, "old", 3));
    SBW_ASSERT_OK(sbw_file_commit(&f));
    assert_int_equal(symlink(target, link), 0);
    SBW_ASSERT_OK(sbw_file_create(&f, link));
    SBW_ASSERT_OK(sbw_file_write(&f, "new", 3));
    SBW_ASSERT_OK(sbw_file_commit(&f));
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    read_all(target, buf, sizeof buf);
    assert_string_equal(buf, "new");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_creates_and_replaces),
        cmocka_unit_test(test_devices_and_errors),
        cmocka_unit_test(test_symlink_target_replaced),
    };
    return cmocka_run_group_tests_name("file", tests, NULL, NULL);
}
