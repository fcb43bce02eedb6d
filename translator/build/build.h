/*
 * build.h - passes 4 and 5 (build/): the module built with kbuild
 * (kbuild.c) and run with staprun (run.c).
 */
#ifndef BUILD_H
#define BUILD_H

#include "elab.h"

int kbuild(struct session *s);
int run_module(struct session *s);

#endif /* BUILD_H */
