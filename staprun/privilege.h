/* SPDX-License-Identifier: GPL-2.0 */
/*
 * privilege.h - staprun's privilege checks (privilege.c): the stap
 * groups, the module's level and place, and dropping a setuid root.
 */
#ifndef STAPRUN_PRIVILEGE_H
#define STAPRUN_PRIVILEGE_H

#include <stdbool.h>
#include <stddef.h>

/* 4.8's numbers (stap --privilege) */
enum { PR_STAPUSR = 2, PR_STAPSYS = 4, PR_STAPDEV = 8 };

/* The levels the user has (root: all of them; 0: none). */
int user_credentials(void);
const char *privilege_text(int pr);
/* Root or a member of a stap group? Else 4.8's error (returns -1). */
int check_groups(void);
/* May the user load MODULE (its image; level: its .modinfo
 * stap_privilege, or NULL)? Else the reason, and -1. */
int check_module_privilege(const char *module, const char *img, size_t len,
			   const char *level, int verbose);
/* Run by a user through the setuid bit? */
bool running_setuid(void);
/* Become the real user for good (a no-op unless setuid). */
int drop_privileges(void);

#endif
