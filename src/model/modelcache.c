/*
 * modelcache.c - the model cache: a run that finds the model it would
 * load already loaded on disk takes up that image (modelimage.c) instead
 * of parsing the cfg, .bell, .cat and .def files and resolving them.
 *
 * One file per model directory, cfg and -variant list, $CACHE/model-HASH,
 * where HASH is of the directory as given (with the current directory
 * when it is relative), the cfg's name and the variants (which decide
 * the model's `if`s): the image's messages name the files by those paths.  The file holds
 *
 *   a header: magic, format, sizes, the identity of the binary that
 *             wrote it, the address the image is made for, a hash of
 *             each part and of the header itself;
 *   a manifest: every file the load read, in order, with a hash of its
 *             contents; for a file of our library, the model directory's
 *             path that was tried first and could not be read;
 *   the relocations: where the image's pointers are;
 *   the image (modelimage.c), at a page boundary.
 *
 * A run takes the image up only if the header is whole and its hash
 * holds (no truncated, corrupt or foreign file), the identity is its
 * own, every file of the manifest still reads the same (or still cannot
 * be read), and the image's hash holds.  The files are read and hashed
 * on every run, which is cheap; parsing them is what the cache saves.
 * Anything else is a miss: the model is loaded as without a cache and
 * the file written again.
 *
 * The image is mapped, not read: at the address it is made for, it is
 * used as it is, its pages shared with the page cache (evaluation writes
 * nothing into the model, and the mapping is read-only); elsewhere (that
 * range taken) its pointers are moved first.  Reading it into fresh
 * memory would cost a page fault a page, more than all the rest of a
 * warm start.
 *
 * The binary's identity is its GNU build ID (a hash the linker computes
 * over the whole executable, -Wl,--build-id), hashed with CACHE_FORMAT:
 * a rebuilt lkmm whose code, structures or built-in library changed in
 * any way never reads an image an older one wrote, without anyone
 * having to remember to bump a version.  A binary without a build ID
 * uses no cache.
 *
 * Writers write a temporary file beside the cache file and rename it
 * into place, so that lkmm processes running at once (-j in several
 * processes, GNU parallel, the kernel's scripts) read a whole file or
 * none: the last rename wins, and every one of them is good.
 */
#define _GNU_SOURCE		/* dl_iterate_phdr() */
#include "model.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "catast.h"
#include "modelimage.h"

/* Bump when the file's layout changes (the image's follows the build ID). */
enum { CACHE_FORMAT = 1 };

static const char cache_magic[8] = "lkmm-mc";

/* ---- Hashing ---- */

struct hash128 {
	uint64_t lo, hi;
};

/* Odd multipliers: the fractional parts of the square roots of primes. */
static const uint64_t lane_mul[4] = {
	0x510e527fade682d1u, 0x9b05688c2b3e6c1fu, 0x1f83d9abfb41bd6bu, 0x5be0cd19137e2179u,
};

/* A bijection that spreads every input bit over the output. */
static uint64_t avalanche(uint64_t x)
{
	x ^= x >> 31;
	x *= 0xcbbb9d5dc1059ed9u;
	x ^= x >> 29;
	x *= 0x629a292a367cd507u;
	return x ^ x >> 32;
}

static uint64_t rotl(uint64_t x, int n)
{
	return x << n | x >> (64 - n);
}

static uint64_t word(const unsigned char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/*
 * Mix 16 bytes into lane x: a bijection of x, and injective in either
 * word when the other stays.  Four instructions a word, so that hashing
 * the cache file costs little beside reading it.
 */
static uint64_t lane_step(uint64_t x, const unsigned char *p, uint64_t mul)
{
	return rotl((x ^ word(p)) * mul + word(p + 8), 29);
}

/* 64 bytes into the four lanes, 16 each (kept in registers: a scalar multiply beats SSE's). */
static void hash_block(uint64_t lane[4], const unsigned char *p)
{
	uint64_t a = lane[0], b = lane[1], c = lane[2], d = lane[3];

	a = lane_step(a, p, lane_mul[0]);
	b = lane_step(b, p + 16, lane_mul[1]);
	c = lane_step(c, p + 32, lane_mul[2]);
	d = lane_step(d, p + 48, lane_mul[3]);
	lane[0] = a;
	lane[1] = b;
	lane[2] = c;
	lane[3] = d;
}

/*
 * A 128-bit hash of data, fast rather than cryptographic: it tells
 * changed files and damaged cache files from good ones, not attacks.
 * Each step is a bijection of its lane, injective in each word it reads,
 * so two inputs of one length that differ in a single 8-byte word always
 * hash apart; other changes collide with odds of about 2^-128.  MD5
 * (digest.c) would do too, at several times the cost on the cache file
 * of every run.
 */
static struct hash128 hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t lane[4] = { lane_mul[2], lane_mul[3], lane_mul[0], lane_mul[1] };
	unsigned char last[64] = { 0 };
	size_t n = len;

	for (; n >= sizeof(last); p += sizeof(last), n -= sizeof(last))
		hash_block(lane, p);
	memcpy(last, p, n);	/* the rest, padded with zeros: the length tells */
	hash_block(lane, last);
	return (struct hash128){
		avalanche(lane[0] ^ rotl(lane[1], 16) ^ rotl(lane[2], 32) ^ rotl(lane[3], 48) ^ len),
		avalanche(lane[3] + rotl(lane[2], 16) + rotl(lane[1], 32) + rotl(lane[0], 48) +
			  len * lane_mul[0]),
	};
}

static bool hash_equal(struct hash128 a, struct hash128 b)
{
	return a.lo == b.lo && a.hi == b.hi;
}

/* ---- The key ---- */

struct build_id {
	const unsigned char *bytes;
	size_t len;
};

/* The GNU build ID among the notes of a PT_NOTE segment, if there. */
static void find_build_id(const char *notes, size_t size, size_t align, struct build_id *id)
{
	align = align == 8 ? 8 : 4;
	while (size >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) note;
		size_t desc, next;

		memcpy(&note, notes, sizeof(note));
		desc = (sizeof(note) + note.n_namesz + align - 1) / align * align;
		next = (desc + note.n_descsz + align - 1) / align * align;
		if (next > size)
			return;
		if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
		    !memcmp(notes + sizeof(note), "GNU", 4)) {
			id->bytes = (const unsigned char *)notes + desc;
			id->len = note.n_descsz;
			return;
		}
		notes += next;
		size -= next;
	}
}

/* dl_iterate_phdr() calls this on the program first: look no further. */
static int program_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE)
			find_build_id((const char *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz,
				      ph->p_align, arg);
	}
	return 1;
}

/* Which cache file, and what must have written it. */
struct cache_key {
	struct hash128 place;		/* the model directory, the cfg, -variant */
	struct hash128 identity;	/* the place, CACHE_FORMAT and the build ID */
};

/* NUL-terminated, so that no two lists of fields run together alike. */
static void add_field(struct strbuf *sb, const void *data, size_t len)
{
	sb_add(sb, data, len);
	sb_add(sb, "", 1);
}

static bool cache_key(struct cache_key *key, const struct model_spec *spec)
{
	const char *variants = spec->variants ? spec->variants : "";
	struct build_id id = { 0 };
	struct strbuf sb = { 0 };
	char cwd[PATH_MAX] = "";
	int format = CACHE_FORMAT;

	dl_iterate_phdr(program_build_id, &id);
	if (!id.len || (spec->dir[0] != '/' && !getcwd(cwd, sizeof(cwd))))
		return false;
	add_field(&sb, cwd, strlen(cwd));
	add_field(&sb, spec->dir, strlen(spec->dir));
	add_field(&sb, spec->cfg_name, strlen(spec->cfg_name));
	add_field(&sb, variants, strlen(variants));
	key->place = hash_bytes(sb.buf, sb.len);
	add_field(&sb, &format, sizeof(format));
	add_field(&sb, id.bytes, id.len);
	key->identity = hash_bytes(sb.buf, sb.len);
	sb_free(&sb);
	return true;
}

static char *cache_path(const char *cache_dir, const struct cache_key *key)
{
	struct strbuf path = { 0 };

	sb_addf(&path, "%s/model-%016llx%016llx", cache_dir, (unsigned long long)key->place.hi,
		(unsigned long long)key->place.lo);
	return path.buf;
}

char *model_cache_dir(void)
{
	const char *dir = getenv("LKMM_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	struct strbuf path = { 0 };

	if (dir && *dir)
		sb_addf(&path, "%s", dir);
	else if (xdg && xdg[0] == '/')	/* the XDG spec ignores a relative one */
		sb_addf(&path, "%s/lkmm", xdg);
	else if (home && *home)
		sb_addf(&path, "%s/.cache/lkmm", home);
	return path.buf;
}

/* ---- The file ---- */

/*
 * The file: this header, the manifest, the relocations, then the image
 * at a multiple of the page size, for mmap().  The image's pointers are
 * right for the address `base`, where a run maps it when that range is
 * free: then the image is used as it is, its pages shared with the page
 * cache; elsewhere its pointers are moved (the
 * relocations say where they are).
 */
struct cache_header {
	char magic[8];
	uint32_t format;		/* CACHE_FORMAT */
	uint32_t header_size;		/* sizeof(struct cache_header) */
	struct hash128 identity;	/* cache_key()'s */
	uint64_t file_len;
	uint64_t base;
	uint64_t manifest_len;		/* right after the header */
	uint64_t nrelocs;		/* 32-bit offsets, right after the manifest */
	uint64_t image_at, image_len;
	struct hash128 manifest_hash, relocs_hash, image_hash;
	struct hash128 header_hash;	/* of the fields above */
};

/*
 * One file the load read.  The path follows, NUL-terminated, then zeros
 * up to a multiple of 8 bytes.
 */
struct manifest_entry {
	uint32_t path_len;
	uint32_t builtin;	/* our library's file was used: path could not be read */
	struct hash128 text;	/* else the hash of what path held */
};

static size_t entry_size(size_t path_len)
{
	return (sizeof(struct manifest_entry) + path_len + 1 + 7) / 8 * 8;
}

/* cat_each_source()'s callback: the file's entry, added to the manifest. */
static void add_source(void *manifest, const char *path, const char *text)
{
	struct manifest_entry e = { (uint32_t)strlen(path), !text, { 0, 0 } };
	static const char zeros[8];

	if (text)
		e.text = hash_bytes(text, strlen(text));
	sb_add(manifest, &e, sizeof(e));
	sb_add(manifest, path, e.path_len);
	sb_add(manifest, zeros, entry_size(e.path_len) - sizeof(e) - e.path_len);
}

/*
 * Whether the file reads as the entry says: the same text, or not at all.
 * The text ends at its first NUL, as for the parsers.
 */
static bool source_unchanged(const struct manifest_entry *e, const char *path)
{
	char *text = read_file(path, NULL);
	bool same = e->builtin ? !text : text && hash_equal(hash_bytes(text, strlen(text)), e->text);

	free(text);
	return same;
}

static bool sources_unchanged(const char *manifest, size_t len)
{
	while (len) {
		struct manifest_entry e;
		size_t size;

		if (len < sizeof(e))
			return false;
		memcpy(&e, manifest, sizeof(e));
		size = entry_size(e.path_len);
		if (e.path_len > len || size > len || manifest[sizeof(e) + e.path_len] ||
		    !source_unchanged(&e, manifest + sizeof(e)))
			return false;
		manifest += size;
		len -= size;
	}
	return true;
}

/* The address the image of the model at key's place is made for: a range programs leave free. */
static uintptr_t cache_base(const struct cache_key *key)
{
	return (uintptr_t)(0x200000000000u + ((key->place.lo & 0xfff) << 32));
}

static struct hash128 header_hash(const struct cache_header *h)
{
	return hash_bytes(h, offsetof(struct cache_header, header_hash));
}

/* Whether the header is whole, ours, and fits a file of len bytes. */
static bool header_fits(const struct cache_header *h, uint64_t len, const struct cache_key *key)
{
	if (memcmp(h->magic, cache_magic, sizeof(cache_magic)) || h->format != CACHE_FORMAT ||
	    h->header_size != sizeof(*h) || !hash_equal(h->header_hash, header_hash(h)) ||
	    !hash_equal(h->identity, key->identity) || h->file_len != len ||
	    h->manifest_len >= len || h->nrelocs >= len || h->image_at > len)
		return false;
	return sizeof(*h) + h->manifest_len + h->nrelocs * sizeof(uint32_t) <= h->image_at &&
	       h->image_len == len - h->image_at && h->image_at % sysconf(_SC_PAGESIZE) == 0;
}

/* n bytes at offset at of the file, allocated; NULL if it cannot read them all. */
static char *read_part(int fd, uint64_t at, size_t n)
{
	char *buf = xmalloc(n ? n : 1);

	if (pread(fd, buf, n, at) != (ssize_t)n) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The header and manifest, if the file is whole, ours, and its model up to date. */
static bool file_current(int fd, const struct cache_key *key, struct cache_header *h)
{
	struct stat st;
	char *manifest;
	bool current;

	if (fstat(fd, &st) || pread(fd, h, sizeof(*h), 0) != sizeof(*h) ||
	    !header_fits(h, st.st_size, key))
		return false;
	manifest = read_part(fd, sizeof(*h), h->manifest_len);
	current = manifest && hash_equal(hash_bytes(manifest, h->manifest_len), h->manifest_hash) &&
		  sources_unchanged(manifest, h->manifest_len);
	free(manifest);
	return current;
}

/* Make the image mapped at map right for where it is; false if its relocations are damaged. */
static bool move_image(int fd, const struct cache_header *h, char *map)
{
	size_t n = h->nrelocs * sizeof(uint32_t);
	char *relocs = read_part(fd, sizeof(*h) + h->manifest_len, n);
	bool moved = relocs && hash_equal(hash_bytes(relocs, n), h->relocs_hash) &&
		     image_rebase(map, h->image_len, h->base, (uintptr_t)map, relocs, h->nrelocs);

	free(relocs);
	return moved;
}

/*
 * The image, mapped at its base if that range is free, else anywhere and
 * moved; NULL if it is damaged.  Populated at once: its hash reads every
 * page, and one call is cheaper than a fault for each (half of a small
 * test's page faults, otherwise).  Read-only once in place: the loaded
 * model is (catast.h), and a write into it would fault.
 */
static char *map_image(int fd, const struct cache_header *h)
{
	char *map = mmap((void *)(uintptr_t)h->base, h->image_len, PROT_READ,
			 MAP_PRIVATE | MAP_FIXED_NOREPLACE | MAP_POPULATE, fd, h->image_at);

	if (map != MAP_FAILED && map != (char *)(uintptr_t)h->base) {
		munmap(map, h->image_len);	/* a kernel that took the address as a hint */
		map = MAP_FAILED;
	}
	if (map == MAP_FAILED)
		map = mmap(NULL, h->image_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE,
			   fd, h->image_at);
	if (map == MAP_FAILED)
		return NULL;
	if (hash_equal(hash_bytes(map, h->image_len), h->image_hash) &&
	    (map == (char *)(uintptr_t)h->base ||
	     (move_image(fd, h, map) && !mprotect(map, h->image_len, PROT_READ))))
		return map;
	munmap(map, h->image_len);
	return NULL;
}

bool model_cache_load(struct loaded_model *lm, const char *cache_dir, const struct model_spec *spec)
{
	struct cache_key key;
	struct cache_header h;
	char *path, *map = NULL;
	int fd;

	if (!cache_key(&key, spec))
		return false;
	path = cache_path(cache_dir, &key);
	fd = open(path, O_RDONLY);
	free(path);
	if (fd < 0)
		return false;
	if (file_current(fd, &key, &h))
		map = map_image(fd, &h);
	close(fd);
	if (!map)
		return false;
	if (!image_read(map, h.image_len, spec->dir, lm)) {
		munmap(map, h.image_len);
		return false;
	}
	lm->image = map;
	lm->image_size = h.image_len;
	return true;
}

static bool write_all(int fd, const char *bytes, size_t len)
{
	while (len) {
		ssize_t n = write(fd, bytes, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		bytes += n;
		len -= n;
	}
	return true;
}

/* bytes as the file at path: written aside, then renamed into place, or not at all. */
static void write_atomically(const char *path, const char *bytes, size_t len)
{
	struct strbuf tmp = { 0 };
	int fd;
	bool written;

	sb_addf(&tmp, "%s.XXXXXX", path);
	fd = mkstemp(tmp.buf);
	if (fd >= 0) {
		written = write_all(fd, bytes, len);
		if (close(fd) || !written || rename(tmp.buf, path))
			unlink(tmp.buf);
	}
	sb_free(&tmp);
}

/* The cache file for lm, its image (moved to the base) in im: header, manifest, relocations, image. */
static void cache_file(const struct loaded_model *lm, const struct cache_key *key,
		       const char *macros_text, const struct model_image *im, struct strbuf *file)
{
	struct cache_header h = { .format = CACHE_FORMAT, .header_size = sizeof(h),
				  .identity = key->identity, .base = cache_base(key) };
	size_t page = sysconf(_SC_PAGESIZE), relocs_len = im->nrelocs * sizeof(*im->relocs);

	memcpy(h.magic, cache_magic, sizeof(h.magic));
	sb_add(file, &h, sizeof(h));
	cat_each_source(lm->model, add_source, file);
	add_source(file, cat_macros_file(lm->model), macros_text);
	h.manifest_len = file->len - sizeof(h);
	h.manifest_hash = hash_bytes(file->buf + sizeof(h), h.manifest_len);
	sb_add(file, im->relocs, relocs_len);
	h.nrelocs = im->nrelocs;
	h.relocs_hash = hash_bytes(im->relocs, relocs_len);
	h.image_at = (file->len + page - 1) / page * page;
	while (file->len < h.image_at)
		sb_add(file, "", 1);
	sb_add(file, im->bytes, im->len);
	h.image_len = im->len;
	h.image_hash = hash_bytes(im->bytes, im->len);
	h.file_len = file->len;
	h.header_hash = header_hash(&h);
	memcpy(file->buf, &h, sizeof(h));
}

void model_cache_store(const struct loaded_model *lm, const char *cache_dir,
		       const struct model_spec *spec, const char *macros_text)
{
	struct cache_key key;
	struct model_image im;
	struct strbuf file = { 0 };
	char *path;

	if (!cache_key(&key, spec) || !image_write(lm, &im))
		return;
	if (image_rebase(im.bytes, im.len, 0, cache_base(&key), im.relocs, im.nrelocs))
		cache_file(lm, &key, macros_text, &im, &file);
	image_free(&im);
	path = cache_path(cache_dir, &key);
	if (file.len && make_dirs(cache_dir, 0700))	/* private, as caches are */
		write_atomically(path, file.buf, file.len);
	free(path);
	sb_free(&file);
}
