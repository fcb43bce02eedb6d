/*
 * build.h - passes 4 and 5 (build/): the module built with kbuild
 * (kbuild.c), kept in the module cache (cache.c), and run with staprun
 * (run.c).
 */
#ifndef BUILD_H
#define BUILD_H

#include "elab.h"

int kbuild(struct session *s);
/* kdirect.c: kbuild's commands run without make once make has run them */
int kdirect_build(struct session *s, const char *kdir, const char *flags, const char *log,
		  int (*make)(struct session *, const char *, const char *));
/* kmodc.c: the .mod.o from a kept assembly of its .mod.c's shape (the
 * recipe's .mod.o line, placeholders kept: kmodc_line) */
const char *kmodc_line(const char *recipe, size_t *n);
int kmodc_build(struct session *s, const char *recipe, const char *kdir, const char *line);
void kmodc_learn(struct session *s, const char *recipe, const char *kdir, const char *line);
/* rtobj.c: the runtime as an object of its own (RTOBJ_NAME.o beside the
 * script's), kept in the cache when kdirect.c builds */
#define RTOBJ_NAME "stp_rt"
bool rtobj_split(struct session *s);
int rtobj_write_c(struct session *s);
bool rtobj_lookup(struct session *s, const char *recipe, const char *cmd, const char *flags,
		  char key[65]);
void rtobj_store(struct session *s, const char *recipe, const char *key);
int run_module(struct session *s);
/* sign.c: --sign-module, after kbuild (its key made once) */
int sign_module(struct session *s);

/* cache.c: the module cache, $SYSTEMTAP_DIR/cache (man stap, CACHING) */
void cache_setup(struct session *s);
bool cache_lookup(struct session *s);
void cache_store(struct session *s);
void cache_clean(struct session *s);

/* sha256.c */
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
};
void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t n);
void sha256_hex(struct sha256 *c, char out[65]);
void sha256_buf_hex(const void *data, size_t n, char out[65]);

#endif /* BUILD_H */
