/*
 * prepare.c - a plain kernel source tree made parseable: its generated
 * headers (autoconf.h, asm offsets ...) from `make LLVM=1 defconfig
 * prepare` into a directory of the cache, never into the tree.
 *
 * defconfig because it builds in seconds and sets CONFIG_SMP, without
 * which smp_load_acquire() would silently be the uniprocessor one; a
 * file the config does not build still parses, only its #ifdef'd parts
 * are absent.  The directory is made again when a Kconfig file the last
 * run read is newer than its result (Kbuild's own list of them).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "code.h"

/* FNV-1a of the tree's path: the cache's name for it. */
static unsigned long long path_hash(const char *s)
{
	unsigned long long h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static bool newer(const char *path, const struct timespec *than)
{
	struct stat st;

	if (stat(path, &st))
		return true;	/* gone: make it again */
	return st.st_mtim.tv_sec > than->tv_sec ||
	       (st.st_mtim.tv_sec == than->tv_sec && st.st_mtim.tv_nsec > than->tv_nsec);
}

/* Whether dir holds a prepare of the tree as it is now. */
static bool up_to_date(const char *dir)
{
	char path[PATH_MAX + 256], *text, *p;
	struct stat result;
	bool fresh = true;
	size_t len;

	if (snprintf(path, sizeof(path), "%s/include/generated/autoconf.h", dir) >= (int)sizeof(path))
		return false;
	if (stat(path, &result))
		return false;
	snprintf(path, sizeof(path), "%s/include/config/auto.conf.cmd", dir);
	text = read_file(path, &len);
	if (!text)
		return false;
	/* "deps_config := \ FILE \ FILE ..." and "FILE:" lines: every Kconfig read */
	for (p = strtok(text, " \t\n\\"); p && fresh; p = strtok(NULL, " \t\n\\")) {
		if (p[0] != '/' || strstr(p, "$("))
			continue;
		if (p[strlen(p) - 1] == ':')
			p[strlen(p) - 1] = '\0';
		fresh = !newer(p, &result.st_mtim);
	}
	free(text);
	return fresh;
}

int code_prepare_tree(const char *tree, const char *cache_root, char **build_dir, struct strbuf *err)
{
	char real[PATH_MAX], dir[PATH_MAX + 64], log[PATH_MAX + 96], path[PATH_MAX + 64];
	struct stat st;
	pid_t pid;
	int status;

	snprintf(path, sizeof(path), "%s/Makefile", tree);
	if (!realpath(tree, real) || stat(path, &st)) {
		sb_addf(err, "%s: error: not a kernel source tree (no Makefile)\n", tree);
		return EXIT_BAD_INPUT;
	}
	snprintf(path, sizeof(path), "%s/include/generated/autoconf.h", real);
	if (!stat(path, &st)) {
		/* configured in place: its own generated headers */
		*build_dir = xstrdup(real);
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/code/%016llx", cache_root, path_hash(real));
	if (up_to_date(dir)) {
		*build_dir = xstrdup(dir);
		return 0;
	}
	if (!make_dirs(dir, 0755)) {
		sb_addf(err, "%s: error: cannot make the directory: %s\n", dir, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	snprintf(log, sizeof(log), "%s/prepare.log", dir);
	fprintf(stderr, "lkmm code: preparing %s once (make LLVM=1 defconfig prepare into %s)\n",
		real, dir);
	pid = fork();
	if (pid < 0) {
		sb_addf(err, "lkmm code: error: fork: %s\n", strerror(errno));
		return EXIT_INTERNAL;
	}
	if (pid == 0) {
		char o[PATH_MAX + 80];

		if (!freopen(log, "w", stdout) || !freopen(log, "a", stderr))
			_exit(127);
		snprintf(o, sizeof(o), "O=%s", dir);
		execlp("make", "make", "-s", "-C", real, o, "-j2", "LLVM=1", "ARCH=x86_64",
		       "defconfig", "prepare", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		sb_addf(err, "%s: error: `make LLVM=1 defconfig prepare` failed (clang, ld.lld, flex, "
			"bison and libelf-dev are needed): see %s\n", real, log);
		return EXIT_BAD_INPUT;
	}
	*build_dir = xstrdup(dir);
	return 0;
}
