/*
 * prepare.c - a plain kernel source tree made parseable: its generated
 * headers (autoconf.h, asm offsets ...) from `make LLVM=1 CONFIG prepare`
 * into a directory of the cache, never into the tree.
 *
 * The default CONFIG is allyesconfig: every option a file or a header
 * tests with #ifdef is set (allmodconfig would leave a tristate's
 * CONFIG_X undefined, only CONFIG_X_MODULE), and so is CONFIG_SMP,
 * without which smp_load_acquire() would silently be the uniprocessor
 * one.  It prepares in about 22 s, once.  The directory is made again
 * when a Kconfig file the last run read is newer than its result
 * (Kbuild's own list of them).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "code.h"

/* FNV-1a of the tree's path and the config: the cache's name for them. */
static unsigned long long prepare_hash(const char *tree, const char *config)
{
	unsigned long long h = 1469598103934665603ULL;
	const char *s;

	for (s = tree; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = h * 1099511628211ULL;	/* the NUL between them */
	for (s = config; *s; s++)
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

int code_prepare_tree(const char *tree, const char *config, const char *cache_root, char **build_dir,
		      struct strbuf *err)
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
	snprintf(dir, sizeof(dir), "%s/code/%016llx", cache_root, prepare_hash(real, config));
	if (up_to_date(dir)) {
		*build_dir = xstrdup(dir);
		return 0;
	}
	if (!make_dirs(dir, 0755)) {
		sb_addf(err, "%s: error: cannot make the directory: %s\n", dir, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	snprintf(log, sizeof(log), "%s/prepare.log", dir);
	fprintf(stderr, "lkmm code: preparing %s once (make LLVM=1 %s prepare into %s)\n",
		real, config, dir);
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
		       config, "prepare", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		sb_addf(err, "%s: error: `make LLVM=1 %s prepare` failed (clang, ld.lld, flex, "
			"bison and libelf-dev are needed): see %s\n", real, config, log);
		return EXIT_BAD_INPUT;
	}
	*build_dir = xstrdup(dir);
	return 0;
}
