/*
 * probes.c - the process("PATH") probe family, passes 2 and 3:
 *   process("PATH").function("GLOB")[.call | .return]
 *   process("PATH").statement("FUNC@FILE:LINE")
 *   process("PATH").mark("NAME"), process("PATH").provider("P").mark("NAME")
 * resolved (points.c) against the binary's DWARF, symbol table and SDT
 * notes (ubin.c) into (path, file offset) pairs the runtime's uprobes.c
 * registers, with their target variables. A kernel module's function
 * with DWARF (module("M").function()) is filled here too, as a kprobe.
 *
 * Placement: a function probe goes on the function's first instruction
 * (which the kernel can usually emulate, ~10x cheaper than the
 * single-stepping that instructions after the prologue need) when its
 * parameters are all integers or pointers in the six argument registers;
 * they are read from there. Otherwise, as upstream, after the prologue,
 * and the parameters are read through their DWARF locations. Locals and
 * statement probes always use DWARF locations (uloc.c), marks the SDT
 * operands. $return is the return register, narrowed to its type.
 */
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "process.h"

struct uprobe_info {
	struct ubin *bin;
	const struct ufunc *func;	/* NULL for a mark */
	const struct usdt *sdt;		/* marks */
	const char *plt;		/* .plt("NAME"): NAME */
	const struct ucall *calls;	/* .callee(): the call sites */
	size_t ncalls;
	const char *pn;			/* pn() when not pp(): the point as -l lists it */
	uint64_t addr;			/* link-time address probed */
	uint64_t offset;		/* its file offset */
	uint64_t sem_offset;		/* SDT semaphore's file offset, 0: none */
	bool at_entry;			/* parameters in their ABI registers */
	struct uvar *vars;		/* parameters, then locals */
	int nvars, nparams;
	struct uvar ret;		/* type NULL: void */
	const char *ksym;		/* kernel module: "module:function" */
};

#define NARG_REGS 6

/* ---- pass 2: resolution ----------------------------------------------------- */

/* rp's process data, probing b: user space, or a kernel module's
 * function (a kretprobe that keeps @entry). */
static struct uprobe_info *new_info(struct session *s, struct rprobe *rp, struct ubin *b)
{
	rp->u = arena_alloc(s->arena, sizeof(*rp->u));
	rp->u->bin = b;
	rp->kind = RP_UPROBE;
	if (ubin_is_kernel(b))
		rp->flags = (rp->flags & ~RF_USER) | RF_ENTRY | RF_KRETPROBE;
	if (ubin_is_kernel(b) && !ubin_is_vmlinux(b))
		rp->kmod_dwarf = b;
	else if (!ubin_is_kernel(b))
		rp->binary = ubin_path(b);
	return rp->u;
}

/* An integer-class value (int, enum, pointer) of at most 8 bytes? */
static bool in_register(const struct btf *btf, unsigned int id)
{
	const struct btf_type *t = deref_skip(btf, &id);

	if (!t)
		return false;
	if (btf_is_ptr(t) || btf_is_enum(t))
		return true;
	return btf_is_int(t) && t->size <= 8;
}

/* Where to put a probe on f: its entry when every parameter is in an
 * argument register there. */
static void place_function(struct session *s, struct uprobe_info *u)
{
	const struct btf *btf = ubin_btf(u->bin);

	u->at_entry = u->nparams <= NARG_REGS && !u->func->inlined;
	for (int i = 0; i < u->nparams; i++)
		u->at_entry &= in_register(btf, u->vars[i].type_id);
	u->addr = u->at_entry ? u->func->entry : ubin_after_prologue(u->bin, u->func);
	if (!u->func->die || u->func->inlined)	/* no prologue to skip */
		u->addr = u->func->entry;
	(void)s;
}

/* r's $variables for -L and @defined: kcat_arg views of u->vars. */
static void set_args(struct session *s, struct rprobe *r)
{
	struct uprobe_info *u = r->u;
	struct kcat_arg *a = arena_alloc(s->arena, sizeof(*a) * (size_t)(u->nvars + 1));

	for (int i = 0; i < u->nvars; i++)
		a[i] = (struct kcat_arg){ u->vars[i].name, u->vars[i].type,
					  ubin_btf(u->bin), u->vars[i].type_id };
	r->args = a;
	r->nargs = r->ret ? u->nparams : u->nvars;	/* .return: no locals */
	if (u->ret.type) {
		struct kcat_arg *rv = arena_alloc(s->arena, sizeof(*rv));

		*rv = (struct kcat_arg){ "return", u->ret.type, ubin_btf(u->bin), u->ret.type_id };
		r->ret_type = u->ret.type;
		r->ret_arg = rv;
	} else {
		r->ret_type = "void";
	}
}

static const char *func_label(struct session *s, const struct ufunc *f)
{
	if (!f->file)
		return f->name;
	return arena_printf(s->arena, "%s@%s:%d", f->name, f->file, f->line);
}

static bool uprobe_is_kernel(const struct rprobe *rp)
{
	return rp->u && ubin_is_kernel(rp->u->bin);
}

/* process("PATH") or, in a kernel module, module("M") as written */
const char *uprobe_point_prefix(struct session *s, struct ubin *b)
{
	if (ubin_is_vmlinux(b))
		return "kernel";
	if (ubin_is_kernel(b))
		return arena_printf(s->arena, "module(\"%s\")", ubin_label(b));
	return arena_printf(s->arena, "process(\"%s\")", ubin_path(b));
}

/* A kernel module's probe goes on "module:function+offset" (ubin_ksym). */
static void place_kernel(struct session *s, struct rprobe *rp, struct uprobe_info *u)
{
	const char *sym;
	uint64_t at = u->addr;

	/* a prologue that is only the __fentry__ call: the probe goes on
	 * that call (ftrace's, no breakpoint), where the registers are the
	 * same, as 4.8 */
	if (u->func && !u->func->inlined && u->addr == u->func->entry + 5 &&
	    ubin_kcall_at(u->bin, u->func->entry))
		at = u->func->entry;
	if (!ubin_ksym(u->bin, at, true, &sym, &u->offset)) {
		diag_error(s, rp->point->loc, "cannot place a probe on %s: no function of module %s holds its address 0x%llx",
			   rp->pp, ubin_kmod(u->bin), (unsigned long long)u->addr);
		return;
	}
	rp->from = rp->pp;	/* 4.8's -p2 shows the point it became */
	if (ubin_is_vmlinux(u->bin)) {	/* the kernel: "symbol"+offset */
		u->ksym = sym;
		rp->note = arena_printf(s->arena, " /* pc=_stext+0x%llx */",
					(unsigned long long)(at - kstab_addr(ubin_kstab(u->bin), "_stext")));
		return;
	}
	u->ksym = arena_printf(s->arena, "%s:%s", ubin_kmod(u->bin), sym);
	rp->note = arena_printf(s->arena, " /* pc=<%s+%llu> */", u->ksym,
				(unsigned long long)u->offset);
	/* 4.8 names its .call half's pc by section and offset */
	rp->entry_note = arena_printf(s->arena, " /* pc=%s+0x%llx */", ubin_section_of(u->bin, at),
				      (unsigned long long)ubin_section_offset(u->bin, at));
}

/* Is f (of the kernel or a module) optimized code, placed at its entry
 * as 4.8 does (its prologue is searched only in code built without -O:
 * the DWARF's producer)? */
static bool kernel_optimized(struct ubin *b, const struct ufunc *f)
{
	const char *prod = ubin_is_vmlinux(b) ? NULL : ubin_producer(b, f);

	return !prod || (strstr(prod, " -O") && !strstr(prod, " -O0"));
}

void uprobe_fill_function(struct session *s, struct rprobe *rp, struct ubin *b,
			  const struct ufunc *f, int how)
{
	static const char *const suffix[] = { "", ".call", ".return", ".inline" };
	struct uprobe_info *u = new_info(s, rp, b);
	bool kernel = ubin_is_kernel(b), fentry;

	u->bin = b;
	u->func = f;
	/* the locals listed as 4.8 does: those located where it probes
	 * (after the prologue; the kernel's, optimized, at the entry) */
	u->nvars = ubin_vars(s, b, f, 0, f->inlined || (kernel && kernel_optimized(b, f)) ? f->entry :
			     ubin_after_prologue(b, f), &u->vars, &u->ret);
	for (int i = 0; i < u->nvars; i++)
		u->nparams += u->vars[i].param;
	place_function(s, u);
	if (kernel) {	/* as 4.8: read through DWARF after the prologue */
		u->addr = f->inlined ? f->entry : ubin_after_prologue(b, f);
		u->at_entry &= how == 2;
	}
	/* the kernel and its modules are optimized code, whose locations
	 * hold from the entry: 4.8 probes their functions there */
	if (kernel && kernel_optimized(b, f))
		u->addr = f->entry;
	/* its variables are read after the entry's call to __fentry__ (the
	 * probe goes on that call, place_kernel()), as 4.8 */
	fentry = kernel && !f->inlined && u->addr == f->entry && ubin_kcall_at(b, f->entry);
	if (fentry)
		u->addr = f->entry + 5;
	/* a .return's entry values: at its entry, or, as 4.8 reads them
	 * (and names their pc), after that call, the same registers */
	if (how == 2 && !fentry)
		u->addr = f->entry;
	rp->ret = how == 2;
	rp->symbol = kernel ? ubin_outer_name(b, f) : f->name;	/* probefunc() */
	rp->pp = arena_printf(s->arena, "%s.function(\"%s\")%s", uprobe_point_prefix(s, b),
			      func_label(s, f), suffix[how]);
	rp->label = arena_printf(s->arena, "%s%s", rp->pp, rp->marks);
	set_args(s, rp);
	if (kernel)
		place_kernel(s, rp, u);
	else if (!ubin_file_offset(b, u->addr, &u->offset))
		diag_error(s, rp->point->loc, "cannot place a probe on %s: its address 0x%llx is not in a loaded segment",
			   rp->pp, (unsigned long long)u->addr);
}

void uprobe_fill_statement(struct session *s, struct rprobe *rp, struct ubin *b,
			   const struct ufunc *f, const char *spec, uint64_t addr)
{
	struct uprobe_info *u = new_info(s, rp, b);

	u->bin = b;
	u->func = f;
	u->addr = addr;
	u->nvars = ubin_vars(s, b, f, addr, addr, &u->vars, &u->ret);
	for (int i = 0; i < u->nvars; i++)
		u->nparams += u->vars[i].param;
	u->ret.type = NULL;
	rp->symbol = ubin_is_kernel(b) ? ubin_outer_name(b, f) : f->name;
	rp->pp = arena_printf(s->arena, "%s.statement(\"%s\")", uprobe_point_prefix(s, b), spec);
	rp->label = arena_printf(s->arena, "%s%s", rp->pp, rp->marks);
	set_args(s, rp);
	if (ubin_is_kernel(b))
		place_kernel(s, rp, u);
	else if (!ubin_file_offset(b, addr, &u->offset))
		diag_error(s, rp->point->loc, "cannot place a probe on %s: its address 0x%llx is not in a loaded segment",
			   rp->pp, (unsigned long long)addr);
}

static int sdt_args(struct session *s, const struct usdt *m, const char ***out);

/* $arg1..$argN of a mark, for -L: "long" as upstream lists them. */
static void mark_args(struct session *s, struct rprobe *rp, const struct usdt *m)
{
	const char **v;
	int n = sdt_args(s, m, &v);
	struct kcat_arg *a = arena_alloc(s->arena, sizeof(*a) * (size_t)(n + 1));

	for (int i = 0; i < n; i++)
		a[i] = (struct kcat_arg){ arena_printf(s->arena, "arg%d", i + 1), "long", NULL, 0 };
	rp->args = a;
	rp->nargs = n;
}

void uprobe_fill_mark(struct session *s, struct rprobe *rp, struct ubin *b,
		      const struct usdt *m)
{
	struct uprobe_info *u = new_info(s, rp, b);

	u->bin = b;
	u->sdt = m;
	u->addr = m->pc;
	rp->symbol = ubin_func_at(b, m->pc);	/* probefunc(): the function */
	/* 4.8's pp() of a mark is the statement it became */
	rp->pp = arena_printf(s->arena, "process(\"%s\").statement(0x%llx)", ubin_path(b),
			      (unsigned long long)m->pc);
	rp->label = arena_printf(s->arena, "process(\"%s\").mark(\"%s\")%s", ubin_path(b),
				 m->name, rp->marks);
	rp->ret_type = "void";
	mark_args(s, rp, m);
	if (!ubin_file_offset(b, m->pc, &u->offset))
		diag_error(s, rp->point->loc, "cannot place a probe on %s: its address 0x%llx is not in a loaded segment",
			   rp->pp, (unsigned long long)m->pc);
	if (m->sem && !ubin_file_offset(b, m->sem, &u->sem_offset))
		u->sem_offset = 0;
}

void uprobe_fill_label(struct session *s, struct rprobe *rp, struct ubin *b,
		       const struct ufunc *f, const struct ulabel *l)
{
	const char *spec = arena_printf(s->arena, "%s@%s:%d", f->name, l->file, l->line);

	uprobe_fill_statement(s, rp, b, f, spec, l->addr);
	/* 4.8: the function "at" the label's line, and .label() in -l */
	rp->pp = arena_printf(s->arena, "%s.function(\"%s\")", uprobe_point_prefix(s, b), spec);
	rp->u->pn = arena_printf(s->arena, "%s.label(\"%s\")", rp->pp, l->name);
	rp->label = arena_printf(s->arena, "%s%s", rp->u->pn, rp->marks);
	if (ubin_is_kernel(b))	/* 4.8's -p2: the function, from the label */
		rp->from = rp->u->pn;
}

void uprobe_fill_callee(struct session *s, struct rprobe *rp, struct ubin *b,
			const struct ufunc *f, const struct ucall *calls, size_t n,
			bool call)
{
	const char *sfx = call ? ".call" : "";

	uprobe_fill_function(s, rp, b, calls[0].callee, call);
	/* at the entry: the return address is where the stack pointer is */
	rp->u->addr = calls[0].callee->entry;
	rp->u->calls = calls;
	rp->u->ncalls = n;
	if (!ubin_file_offset(b, rp->u->addr, &rp->u->offset))
		diag_error(s, rp->point->loc, "cannot place a probe on %s", rp->pp);
	rp->u->pn = arena_printf(s->arena, "process(\"%s\").function(\"%s\").callee(\"%s\")%s",
				 ubin_path(b), func_label(s, f), func_label(s, calls[0].callee),
				 sfx);
	rp->label = arena_printf(s->arena, "%s%s", rp->u->pn, rp->marks);
}

void uprobe_set_pn(struct rprobe *rp, const char *pn)
{
	rp->u->pn = pn;
}

static const char *uprobe_pc_note(struct session *s, const struct rprobe *rp)
{
	return arena_printf(s->arena, " /* pc=%s+0x%llx */",
			    ubin_is_dyn(rp->u->bin) ? ".dynamic" : ".absolute",
			    (unsigned long long)(rp->u->addr - ubin_load_base(rp->u->bin)));
}

static const char *uprobe_origin(const struct rprobe *rp)
{
	const struct uprobe_info *u = rp->u;

	return u->pn && !u->sdt && !u->plt ? u->pn : rp->pp;
}

const char *uprobe_pn(const struct rprobe *rp)
{
	return rp->u->pn;
}

void uprobe_fill_plt(struct session *s, struct rprobe *rp, struct ubin *b,
		     const struct uplt *p)
{
	struct uprobe_info *u = new_info(s, rp, b);
	const struct ufunc **fs;
	size_t n = ubin_match_funcs(b, "*", &fs);
	uint64_t best = 0;

	u->bin = b;
	u->plt = p->name;
	u->addr = p->addr;
	/* probefunc(): as 4.8, the function symbol nearest before the entry
	 * (_init, whatever its size) */
	rp->symbol = "";
	for (size_t i = 0; i < n; i++)
		if (!fs[i]->inlined && fs[i]->entry <= p->addr && fs[i]->entry >= best) {
			best = fs[i]->entry;
			rp->symbol = fs[i]->name;
		}
	/* as for a mark, 4.8's pp() is the statement it became */
	rp->pp = arena_printf(s->arena, "process(\"%s\").statement(0x%llx)", ubin_path(b),
			      (unsigned long long)p->addr);
	u->pn = arena_printf(s->arena, "process(\"%s\").plt(\"%s\")", ubin_path(b), p->name);
	rp->label = arena_printf(s->arena, "%s%s", u->pn, rp->marks);
	rp->ret_type = "void";
	if (!ubin_file_offset(b, p->addr, &u->offset))
		diag_error(s, rp->point->loc, "cannot place a probe on %s: its address 0x%llx is not in a loaded segment",
			   rp->pp, (unsigned long long)p->addr);
}

/* ---- target variables -------------------------------------------------------- */

/* The SDT operands of a mark, split at spaces. */
static int sdt_args(struct session *s, const struct usdt *m, const char ***out)
{
	const char **v = arena_alloc(s->arena, sizeof(*v) * 16);
	const char *p = m->args;
	int n = 0;

	while (p && *p && n < 16) {
		size_t len;

		p += strspn(p, " ");
		len = strcspn(p, " ");
		if (len)
			v[n++] = arena_strndup(s->arena, p, len);
		p += len;
	}
	*out = v;
	return n;
}

static int type_width(const struct btf *btf, unsigned int id, bool *is_signed)
{
	const struct btf_type *t = deref_skip(btf, &id);

	*is_signed = false;
	if (!t)
		return 0;
	if (btf_is_ptr(t))
		return 8;
	if (btf_is_enum(t)) {
		*is_signed = true;
		return (int)t->size;
	}
	if (btf_is_int(t)) {
		*is_signed = btf_int_encoding(t) & BTF_INT_SIGNED;
		return t->size <= 8 ? (int)t->size : 0;
	}
	return 0;	/* aggregate: its address */
}

static const struct uvar *find_var(const struct uprobe_info *u, const char *name)
{
	for (int i = 0; i < u->nvars; i++)
		if (!strcmp(u->vars[i].name, name))
			return &u->vars[i];
	return NULL;
}

/* Why $name is not a variable of u: optimized out here, or unknown (with
 * the names there are, as 4.8 lists its alternatives). */
static const char *missing_var(struct session *s, const struct uprobe_info *u,
			       const char *name)
{
	struct uvar *all, ret;
	struct strbuf sb;
	const char *why;
	int n = u->func ? ubin_vars(s, u->bin, u->func, u->addr, 0, &all, &ret) : 0;

	if (!u->func || !u->func->die)
		return "the program has no DWARF debuginfo for it";

	for (int i = 0; i < n; i++)
		if (!strcmp(all[i].name, name))
			return arena_printf(s->arena, "it was optimized out at this address (0x%llx)",
					    (unsigned long long)u->addr);
	if (!u->nvars)
		return "no such variable";
	sb_init(&sb);
	for (int i = 0; i < u->nvars; i++)
		sb_printf(&sb, "%s$%s", i ? ", " : "", u->vars[i].name);
	why = arena_printf(s->arena, "no such variable (alternatives: %s)", sb.buf);
	sb_free(&sb);
	return why;
}

/* The kernel's own DWARF: $name with no location at the probe's
 * address, in 4.8's words and with its lines about where it has one (why
 * as our DWARF reader says it otherwise). */
static const char *kernel_wording(struct session *s, const struct uprobe_info *u,
				  const char *name, const char *why)
{
	static const char lead[] = "it was optimized out at this address (";
	struct uvar *all, ret;
	const char *detail = "";
	int n;

	if (!why || !ubin_is_vmlinux(u->bin) || strncmp(why, lead, sizeof(lead) - 1))
		return why;
	n = u->func ? ubin_vars(s, u->bin, u->func, u->addr, 0, &all, &ret) : 0;
	for (int i = 0; i < n; i++)
		if (!strcmp(all[i].name, name)) {
			detail = uloc_unavailable_detail(s, u->bin, u->func, &all[i], u->addr);
			break;
		}
	return arena_printf(s->arena, "not accessible at this address (pc: %s) [man error::dwarf]%s",
			    arena_strndup(s->arena, why + sizeof(lead) - 1,
					  strcspn(why + sizeof(lead) - 1, ")")), detail);
}

/* @var("NAME@FILE"): a global of the probe's binary. */
static struct targ global_targ(struct session *s, const struct rprobe *r, const char *spec,
			       const char **body)
{
	const struct uprobe_info *u = r->u;
	struct targ t = { .src = -1 };
	const char *at = strchr(spec, '@');
	const char *name = at ? arena_strndup(s->arena, spec, (size_t)(at - spec)) : spec;
	struct uvar v;
	bool lv = false;

	if (!ubin_global(s, u->bin, name, at ? at + 1 : NULL, &v)) {
		t.why = arena_printf(s->arena, "no global '%s' in %s", spec, ubin_path(u->bin));
		return t;
	}
	t.width = type_width(ubin_btf(u->bin), v.type_id, &t.is_signed);
	*body = uloc_getter(s, u->bin, u->func, &v, u->addr, t.width, &lv, &t.why);
	if (!*body)
		return t;
	if (lv)
		t.width = 8;
	t.src = STP_TARG_GET;
	return t;
}

/* $name at point r: where it comes from (t->src STP_TARG_GET with the
 * getter's body in *body), or why it cannot be read. */
static struct targ utarg_find(struct session *s, const struct rprobe *r, const char *name,
		       const char **body)
{
	const struct uprobe_info *u = r->u;
	struct targ t = { .src = -1 };
	const struct uvar *v;
	bool lv = false;
	int idx = 0;

	*body = NULL;
	if (!strncmp(name, "@var:", 5))
		return global_targ(s, r, name + 5, body);
	if (u->sdt) {
		const char **args;
		int n = sdt_args(s, u->sdt, &args), k;
		const char *why;

		if (strncmp(name, "arg", 3) || (k = atoi(name + 3)) < 1 || k > n) {
			t.why = arena_printf(s->arena, "the marker has %d argument%s", n,
					     n == 1 ? "" : "s");
			return t;
		}
		*body = uloc_sdt_getter(s, args[k - 1], &why);
		if (!*body) {
			t.why = why;
			return t;
		}
		t.src = STP_TARG_GET;
		t.width = abs(atoi(args[k - 1]));
		if (t.width != 1 && t.width != 2 && t.width != 4)
			t.width = 8;
		t.is_signed = args[k - 1][0] == '-';
		return t;
	}
	if (!strcmp(name, "return")) {
		if (!r->ret) {
			t.why = "only .return probes have $return";
			return t;
		}
		if (!u->ret.type) {
			t.why = "the function returns void";
			return t;
		}
		t.width = type_width(ubin_btf(u->bin), u->ret.type_id, &t.is_signed);
		if (!t.width) {
			t.why = "its return type is not a register value";
			return t;
		}
		t.src = -2;	/* STP_TARG_RETURN */
		return t;
	}
	v = find_var(u, name);
	if (!v) {
		t.why = kernel_wording(s, u, name, missing_var(s, u, name));
		if (ubin_is_kernel(u->bin) && !strncmp(t.why, "no such variable", 16)) {
			/* 4.8 names the probe's pc: a function's entry, not
			 * the __fentry__ call's end where its variables are read */
			uint64_t pc = u->func && u->addr == u->func->entry + 5 &&
				      ubin_kcall_at(u->bin, u->func->entry) ? u->func->entry : u->addr;
			const char *w = uloc_unfound_local(s, u->bin, u->func, name, pc);

			t.why = w ? w : t.why;
			t.why_whole = w != NULL;
		}
		return t;
	}
	t.width = type_width(ubin_btf(u->bin), v->type_id, &t.is_signed);
	if (r->ret && (!v->param || !u->at_entry)) {
		t.why = v->param ? "in a .return probe only parameters passed in registers can be read (their entry values)" :
			"a .return probe cannot read the function's locals";
		return t;
	}
	if (v->param && u->at_entry) {
		for (int i = 0; i < u->nvars && &u->vars[i] != v; i++)
			idx += u->vars[i].param;
		t.src = (int)idx;
		return t;
	}
	*body = uloc_getter(s, u->bin, u->func, v, u->addr, t.width, &lv, &t.why);
	if (!*body) {
		t.why = kernel_wording(s, u, name, t.why);
		return t;
	}
	if (lv)
		t.width = 8;
	t.src = STP_TARG_GET;
	return t;
}

/* Is $name at r an object in memory (its address is the value)? */
static bool utarg_lvalue(struct session *s, const struct rprobe *r, const char *name)
{
	const struct uprobe_info *u = r->u;
	const struct uvar *v = u && !u->sdt ? find_var(u, name) : NULL;
	struct uvar g;
	bool sg;

	if (u && !strncmp(name, "@var:", 5)) {
		const char *spec = name + 5, *at = strchr(spec, '@');

		if (!ubin_global(s, u->bin, at ? arena_strndup(s->arena, spec, (size_t)(at - spec)) : spec,
				 at ? at + 1 : NULL, &g))
			return false;
		v = &g;
	}
	return v && !type_width(ubin_btf(u->bin), v->type_id, &sg);
}

/* A guru write of $name at r: NULL when r's handler can store it (the
 * setter's body in *body when it needs one), else why not. */
static const char *utarg_write(struct session *s, const struct rprobe *r, const char *name,
			       const char **body)
{
	const struct uprobe_info *u = r->u;
	const char *get, *why = NULL, *at;
	struct targ t = utarg_find(s, r, name, &get);
	const struct uvar *v = NULL;
	struct uvar g;

	*body = NULL;
	if (t.src == -1)
		return t.why;
	if (t.src != STP_TARG_GET)
		return NULL;	/* an argument register at entry, or $return */
	if (u->sdt && strncmp(name, "@var:", 5))
		return "the arguments of a marker cannot be written";
	if (!strncmp(name, "@var:", 5)) {
		at = strchr(name + 5, '@');
		if (ubin_global(s, u->bin, at ? arena_strndup(s->arena, name + 5,
				(size_t)(at - name - 5)) : name + 5, at ? at + 1 : NULL, &g))
			v = &g;
	} else {
		v = find_var(u, name);
	}
	if (!v || utarg_lvalue(s, r, name))
		return "it is not a scalar";
	*body = uloc_setter(s, u->bin, u->func, v, u->addr, t.width, &why);
	return *body ? NULL : why;
}

/* ---- pass 3: the probe table -------------------------------------------------- */

/* Getters and stp_targ arrays of point id: "static const struct stp_targ
 * stp_utargs_ID[] = ..." with every module-wide target name. */
static const char *targ_table(struct gen *g, struct strbuf *code, const struct rprobe *r,
			      int id)
{
	struct session *s = g->s;
	const char **names = g->tnames;
	int n = g->ntnames;
	struct strbuf tab;
	const char *fields = tr_pgroup(g, r);

	if (!n)
		return fields;
	sb_init(&tab);
	for (int i = 0; i < n; i++) {
		const char *body, *set = NULL;
		struct targ t = utarg_find(s, r, names[i], &body);

		if (body)
			sb_printf(code, "static int64_t stp_ug_%d_%d(struct stp_context *c)\n{\n%s}\n\n",
				  id, i, body);
		if (body && s->guru && !utarg_write(s, r, names[i], &set) && set)
			sb_printf(code, "static void stp_us_%d_%d(struct stp_context *c, int64_t v)\n"
				  "{\n%s}\n\n", id, i, set);
		sb_printf(&tab, "%s { %d, %d, %d, %s, %s }", i ? "," : "", t.src, t.width,
			  t.is_signed, body ? arena_printf(s->arena, "stp_ug_%d_%d", id, i) : "NULL",
			  set ? arena_printf(s->arena, "stp_us_%d_%d", id, i) : "NULL");
	}
	sb_printf(code, "static const struct stp_targ stp_utargs_%d[] = {%s };\n", id, tab.buf);
	sb_free(&tab);
	fields = arena_printf(s->arena, "%s, .targs = stp_utargs_%d", fields, id);
	return fields;
}

/* -4 (STP_TARG_AGG) for a struct or union, -5 (STP_TARG_ARRAY) for an
 * array, else 0. */
static int aggregate_kind(const struct btf *btf, unsigned int id)
{
	const struct btf_type *t = deref_skip(btf, &id);

	if (t && (btf_is_struct(t) || btf_is_union(t)))
		return -4;
	return t && btf_is_array(t) ? -5 : 0;
}

/* $$parms / $$locals / $$vars lists (which 0, 1, 2): every variable
 * readable at r, in order. */
static const char *parm_table(struct gen *g, struct strbuf *code, const struct rprobe *r,
			      int id, int which)
{
	static const char *const kinds[] = { "parms", "locals", "vars" };
	struct session *s = g->s;
	const struct uprobe_info *u = r->u;
	const char *kind = kinds[which];
	struct strbuf tab;
	int k = 0;

	const struct uvar *vars = u->vars;
	int nvars = u->nvars;

	/* the vars table indexes u->vars: not for a module's locals */
	if (u->sdt || (r->ret && which) || (which == 2 && ubin_is_kernel(u->bin)))
		return "";
	if (which == 1 && ubin_is_kernel(u->bin)) {	/* 4.8: all in scope, '?' if not here */
		struct uvar *all, ret;

		nvars = ubin_vars(s, u->bin, u->func, u->addr, 0, &all, &ret);
		vars = all;
	}
	sb_init(&tab);
	for (int i = 0; i < nvars; i++) {
		const char *body;
		struct targ t;

		if (which < 2 && vars[i].param != !which)
			continue;
		t = utarg_find(s, r, vars[i].name, &body);
		if (aggregate_kind(ubin_btf(u->bin), vars[i].type_id)) {
			t.src = aggregate_kind(ubin_btf(u->bin), vars[i].type_id);
			body = NULL;	/* named, not read: "{...}", "[...]" */
		}
		if (body && which < 2)	/* the vars table shares the others' getters */
			sb_printf(code, "static int64_t stp_up_%d_%d(struct stp_context *c)\n{\n%s}\n\n",
				  id, i, body);
		sb_printf(&tab, " { %s, { %d, %d, %d, %s } },", tr_cstr(g, vars[i].name),
			  t.src, t.width, t.is_signed,
			  body ? arena_printf(s->arena, "stp_up_%d_%d", id, i) : "NULL");
		k++;
	}
	if (k)
		sb_printf(code, "static const struct stp_parm stp_u%s_%d[] = {%s { NULL } };\n",
			  kind, id, tab.buf);
	sb_free(&tab);
	return k ? arena_printf(s->arena, ", .%s = stp_u%s_%d", kind, kind, id) : "";
}


/* A kernel module's point: a kprobe (kretprobe) on "module:function"
 * plus the offset, which the kernel resolves when the session starts. */
static void tr_kdwarf_probe(struct gen *g, struct strbuf *code, const struct rprobe *r,
			    int id)
{
	const struct uprobe_info *u = r->u;
	struct session *s = g->s;
	const char *fields = targ_table(g, code, r, id);

	fields = arena_printf(s->arena, "%s%s%s", fields, parm_table(g, code, r, id, true),
			      parm_table(g, code, r, id, false));
	if (r->ret && r->probe->entry_size)
		fields = arena_printf(s->arena, "%s, .entry_handler = probe_%d_entry, "
				      ".entry_size = %s", fields, r->probe->index,
				      r->probe->entry_size);
	tr_table_row(g, "KPROBES", "%s, .handler = probe_%d, .pp = %s, .symbol = %s, "
		     ".koffset = 0x%llxU, .kmodule = %s, .func = %s, .maxactive = -1, .optional = %s%s",
		  r->ret ? "STP_PROBE_KRETPROBE" : "STP_PROBE_KPROBE", r->probe->index,
		  tr_cstr(g, r->pp), tr_cstr(g, u->ksym ? u->ksym : ""),
		  (unsigned long long)u->offset,
		  ubin_is_vmlinux(u->bin) ? "NULL" : tr_cstr(g, ubin_kmod(u->bin)),
		  /* probefunc() of a .return: the caller's, where it returns */
		  tr_cstr(g, r->symbol && !r->ret ? r->symbol : ""),
		  tr_optional(r), fields);
}

/* The user symbol tables written so far (struct gen's utabs). */
struct utab {
	struct utab *next;
	const struct ubin *bin;
	int k;
};

/* The symbol table of b in the module (usymname()), written once; its
 * C name. */
static const char *ubin_table(struct gen *g, struct strbuf *code, struct ubin *b)
{
	struct utab *t;
	const struct ufunc **f;
	size_t n;
	int k = 0;

	for (t = g->utabs; t; t = t->next) {
		if (t->bin == b)
			return arena_printf(g->s->arena, "&stp_ubin_%d", t->k);
		k = t->k + 1;
	}
	t = arena_alloc(g->s->arena, sizeof(*t));
	*t = (struct utab){ g->utabs, b, k };
	g->utabs = t;
	n = ubin_symbols(b, &f);
	sb_printf(code, "static const struct stp_usym stp_usyms_%d[] = {\n", k);
	for (size_t i = 0; i < n; i++)
		sb_printf(code, "\t{ 0x%llxULL, 0x%llxU, %s },\n", (unsigned long long)f[i]->entry,
			  (unsigned long long)(f[i]->end - f[i]->entry), tr_cstr(g, f[i]->name));
	sb_printf(code, "\t{ 0, 0, NULL }\n};\nstatic const struct stp_ubin stp_ubin_%d = "
		  "{ %s, stp_usyms_%d, %zu };\n", k, tr_cstr(g, ubin_path(b)), k, n);
	return arena_printf(g->s->arena, "&stp_ubin_%d", k);
}

/* Pass 3: the probe table row of point r and the arrays it needs. */
static void process_emit(struct gen *g, struct strbuf *code, const struct rprobe *r, int id)
{
	const struct uprobe_info *u = r->u;
	const char *fields, *parms, *locals, *sdt = "";

	if (u->plt)
		sdt = arena_printf(g->s->arena, ", .sdt_name = %s", tr_cstr(g, u->plt));
	if (u->pn)
		sdt = arena_printf(g->s->arena, "%s, .pn = %s", sdt, tr_cstr(g, u->pn));
	if (u->sdt)	/* pn() is the mark as written, pp() the statement */
		sdt = arena_printf(g->s->arena, ", .sdt_name = %s, .sdt_provider = %s, .pn = %s",
				   tr_cstr(g, u->sdt->name), tr_cstr(g, u->sdt->provider),
				   tr_cstr(g, arena_printf(g->s->arena, "process(\"%s\").mark(\"%s\")",
							   ubin_path(u->bin), u->sdt->name)));
	if (ubin_is_kernel(u->bin)) {
		tr_kdwarf_probe(g, code, r, id);
		return;
	}
	fields = arena_printf(g->s->arena, "%s, .ubin = %s", targ_table(g, code, r, id),
			      ubin_table(g, code, u->bin));
	if (u->ncalls) {	/* .callee(): the return addresses of the calls */
		sb_printf(code, "static const u64 stp_ucalls_%d[] = {", id);
		for (size_t i = 0; i < u->ncalls; i++)
			sb_printf(code, " 0x%llxULL,", (unsigned long long)u->calls[i].ret);
		sb_puts(code, " };\n");
		fields = arena_printf(g->s->arena, "%s, .ucalls = stp_ucalls_%d, .nucalls = %zu",
				      fields, id, u->ncalls);
	}
	parms = parm_table(g, code, r, id, 0);
	locals = parm_table(g, code, r, id, 1);
	/* $$vars: in scope order, innermost first, as 4.8 */
	locals = arena_printf(g->s->arena, "%s%s", locals, parm_table(g, code, r, id, 2));
	tr_table_row(g, "UPROBES", "%s, .handler = probe_%d, .pp = %s, .path = %s, "
		     ".uoffset = 0x%llxULL, .usem = 0x%llxULL, .uaddr = 0x%llxULL, .func = %s, "
		     ".maxactive = -1, .optional = %s%s%s%s%s",
		  r->ret ? "STP_PROBE_URETPROBE" : "STP_PROBE_UPROBE", r->probe->index,
		  tr_cstr(g, r->pp), tr_cstr(g, ubin_path(u->bin)),
		  (unsigned long long)u->offset, (unsigned long long)u->sem_offset,
		  (unsigned long long)u->addr, tr_cstr(g, r->symbol ? r->symbol : ""),
		  tr_optional(r), fields, parms, locals, sdt);
}

static int uprobe_nvars(const struct rprobe *r)
{
	return r->u ? r->u->nvars : r->nargs;
}

static int uprobe_nparams(const struct rprobe *r)
{
	return r->u ? r->u->nparams : r->nargs;
}

/* $$name and $$provider of a mark, else NULL. */
static const char *uprobe_mark_string(const struct rprobe *r, const char *op)
{
	if (r->u->plt)
		return strcmp(op, "$$name") ? NULL : r->u->plt;
	if (!r->u->sdt)
		return NULL;
	if (!strcmp(op, "$$name"))
		return r->u->sdt->name;
	if (!strcmp(op, "$$provider"))
		return r->u->sdt->provider;
	return NULL;
}

/* -L lists a kernel module's locals too, as 4.8 does. */
static int process_nlisted(const struct rprobe *r)
{
	return uprobe_is_kernel(r) ? uprobe_nvars(r) : r->nargs;
}

static struct targ process_targ(struct session *s, const struct rprobe *r, const char *name)
{
	const char *body;

	return utarg_find(s, r, name, &body);
}

static const char *process_targ_write(struct session *s, const struct rprobe *r,
				      const char *name)
{
	const char *body;

	return utarg_write(s, r, name, &body);
}

static void process_p2_show(struct session *s, const struct rprobe *r, const char **note,
			    const char **from)
{
	if (!r->u)
		return;
	*note = uprobe_pc_note(s, r);
	if (!r->probe->via)
		*from = uprobe_origin(r);
}

static const char *const process_roots[] = { "process", NULL };
static const char *const process_shapes[] = {
	"process.function.call", "process.function.return", "process.function.label",
	"process.statement.nearest",
	"process.mark", "process.provider.mark", "process.begin", "process.end",
	"process.plt.return",
	"process.library.function.call", "process.library.function.return",
	"process.library.statement.nearest", "process.library.mark",
	"process.library.provider.mark",
	"process.thread.begin", "process.thread.end", "process.syscall.return",
	NULL
};

const struct family family_process = {
	.name = "process",
	.roots = process_roots,
	.unprivileged = pp_unprivileged,	/* own processes (runtime) */
	.shapes = process_shapes,
	.flags = RF_PARMS | RF_RETURN | RF_USER | RF_WRITABLE | RF_DWARF,
	.runtime = "UPROBES",
	.resolve = process_resolve,
	.targ = process_targ,
	.targ_lvalue = utarg_lvalue,
	.targ_write = process_targ_write,
	.mark_string = uprobe_mark_string,
	.p2_show = process_p2_show,
	.nparams = uprobe_nparams,
	.nlisted = process_nlisted,
	.emit = process_emit,
};
