// SPDX-License-Identifier: GPL-2.0
/*
 * stpdwarf.c - a test module for kernel probes read through DWARF
 * (testsuite/test_kdwarf.py): built with -g -O2 so it has real locals,
 * inlined functions and optimised-out values. Writing a number N to
 * /proc/stpdwarf calls stpdwarf_func(N, N * 10, &pair) once.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

struct stpdwarf_pair {
	int x;
	long y;
	char tag[8];
};

int stpdwarf_counter;
static struct stpdwarf_pair stpdwarf_global = { 7, 700, "global" };

/* Called everywhere it is used: an inlined instance at each call site. */
static __always_inline int stpdwarf_inl(int v, int k)
{
	int sq;

	asm volatile("" : "+r"(v), "+r"(k));
	sq = v * k;
	stpdwarf_counter += sq;
	return sq + 1;
}

noinline long stpdwarf_sink(long v)
{
	asm volatile("" : : "r"(v) : "memory");
	return v;
}

noinline int stpdwarf_func(int a, long b, struct stpdwarf_pair *p)
{
	int local = a * 3;
	int unused = a * 7;
	long total = b + p->x;

	total += stpdwarf_inl(local, 2);
	stpdwarf_sink(total);
	total += stpdwarf_inl((int)b, 3);
	stpdwarf_sink(total + local);
	(void)unused;
	return (int)total;
}

static ssize_t stpdwarf_write(struct file *file, const char __user *buf,
			      size_t len, loff_t *pos)
{
	char kbuf[16] = "";
	struct stpdwarf_pair pair = { 5, 50, "pair" };
	int n;

	if (len >= sizeof(kbuf) || copy_from_user(kbuf, buf, len))
		return -EINVAL;
	if (kstrtoint(strim(kbuf), 10, &n))
		return -EINVAL;
	stpdwarf_func(n, n * 10L, &pair);
	stpdwarf_sink(stpdwarf_global.x);
	return len;
}

static const struct proc_ops stpdwarf_ops = {
	.proc_write = stpdwarf_write,
};

static int __init stpdwarf_init(void)
{
	return proc_create("stpdwarf", 0200, NULL, &stpdwarf_ops) ? 0 : -ENOMEM;
}

static void __exit stpdwarf_exit(void)
{
	remove_proc_entry("stpdwarf", NULL);
}

module_init(stpdwarf_init);
module_exit(stpdwarf_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("test module for stap's kernel DWARF probes");
