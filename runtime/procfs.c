/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procfs.c - procfs("PATH").read and .write probes: one file per PATH
 * under /proc/systemtap/<module>/ (subdirectories made as PATH names
 * them), created when the session starts (after the begin probes) and
 * removed when it stops (before the end probes), as SystemTap 4.8 does.
 *
 * Opening a file for reading only runs nothing; the first read() runs the
 * read probe, which fills the file's buffer through $value (.maxsize(N)
 * bytes, else MAXSTRINGLEN), and reads return that snapshot until the
 * file is closed. Each write() hands at most MAXSTRINGLEN - 1 bytes (and
 * less than the buffer's size) to every write probe of the path as
 * $value, in probe order, and returns how many it took. One process at
 * a time may have a file open: others wait (O_NONBLOCK: EAGAIN), as in
 * 4.8. Every file operation holds the file's mutex, so the buffers are
 * never shared by two handlers. proc_remove() waits for operations in
 * progress, so no handler runs once the files are gone.
 *
 * The procfs API moved: struct proc_ops (5.6) and pde_data() (5.17).
 */
#include <linux/proc_fs.h>
#include <linux/namei.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/uaccess.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 6, 0)
#define STP_PROC_OPS 1
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define pde_data(inode) PDE_DATA(inode)
#endif

#define STP_PROCFS_TOP "systemtap"

struct stp_procfs_file {
	const char *path;		/* relative to the module's directory */
	const struct stp_probe *read;	/* the read probe, or NULL */
	const struct stp_probe **writes;	/* the write probes, in order */
	int nwrites;
	size_t size;			/* buffer bytes, the NUL included */
	umode_t mode;
	umode_t umask;			/* the umasks of its probes */
	struct mutex lock;		/* every field below */
	wait_queue_head_t waitq;	/* openers waiting for the file */
	int opencount;
	bool dying;			/* being removed: refuse openers */
	bool needs_fill;		/* next read() runs the read probe */
	size_t count;			/* bytes in buf */
	char *buf;			/* the read probe's $value */
	char *wbuf;			/* one write()'s data */
};

/* a directory made for a subdirectory path: the prefix of a file's path */
struct stp_procfs_dir {
	const char *path;
	size_t len;
	struct proc_dir_entry *pde;
};

static struct stp_procfs_file *stp_procfs_files;
static int stp_procfs_nfiles;
static const struct stp_probe **stp_procfs_wlist;
static struct stp_procfs_dir *stp_procfs_dirs;
static int stp_procfs_ndirs, stp_procfs_maxdirs;
static struct proc_dir_entry *stp_procfs_moddir;

/* ---- $value, for the generated code ---- */

void stp_procfs_get(struct stp_context *c, char *dst)
{
	const struct stp_procfs_data *d = c->procfs;
	size_t n = d ? min(d->count, (size_t)MAXSTRINGLEN - 1) : 0;

	if (n)
		memcpy(dst, d->buf, n);
	dst[n] = '\0';
}

void stp_procfs_set(struct stp_context *c, const char *v, bool append)
{
	struct stp_procfs_data *d = c->procfs;
	size_t vl = strlen(v), at, n;

	if (!d)
		return;
	at = append ? d->count : 0;
	n = min(vl, d->size - 1 - at);
	memcpy(d->buf + at, v, n);
	d->buf[at + n] = '\0';
	d->count = at + n;
	if (n < vl) {
		snprintf(c->error_buffer, sizeof(c->error_buffer),
			 "buffer size exceeded, consider .maxsize(%lu).",
			 (unsigned long)(at + vl + 1));
		c->last_error = c->error_buffer;
	}
}

/* ---- file operations ---- */

static int stp_procfs_open(struct inode *inode, struct file *file)
{
	struct stp_procfs_file *f = pde_data(inode);
	int rc;

	mutex_lock(&f->lock);
	while (f->opencount && !f->dying) {
		mutex_unlock(&f->lock);
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		rc = wait_event_interruptible(f->waitq, !READ_ONCE(f->opencount) ||
					      READ_ONCE(f->dying));
		if (rc)
			return rc;
		mutex_lock(&f->lock);
	}
	if (f->dying) {
		mutex_unlock(&f->lock);
		return -ENOENT;
	}
	f->opencount++;
	if ((file->f_flags & O_ACCMODE) == O_RDONLY && f->read) {
		f->buf[0] = '\0';
		f->count = 0;
		f->needs_fill = true;
	}
	file->private_data = f;
	mutex_unlock(&f->lock);
	return 0;
}

static int stp_procfs_release(struct inode *inode, struct file *file)
{
	struct stp_procfs_file *f = file->private_data;

	mutex_lock(&f->lock);
	f->opencount--;
	mutex_unlock(&f->lock);
	wake_up(&f->waitq);
	return 0;
}

static ssize_t stp_procfs_read(struct file *file, char __user *ubuf,
			       size_t n, loff_t *pos)
{
	struct stp_procfs_file *f = file->private_data;
	struct stp_procfs_data d;
	ssize_t rc = 0;

	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	if (f->needs_fill) {
		f->needs_fill = false;
		if (!stp_may_run(STP_PROBE_PROCFS)) {
			rc = -EIO;
			goto out;
		}
		d = (struct stp_procfs_data){ f->buf, f->size, 0 };
		stp_run_probe_data(f->read, &d);
		f->count = d.count;
	}
	rc = simple_read_from_buffer(ubuf, n, pos, f->buf, f->count);
out:
	mutex_unlock(&f->lock);
	return rc;
}

static ssize_t stp_procfs_write(struct file *file, const char __user *ubuf,
				size_t n, loff_t *pos)
{
	struct stp_procfs_file *f = file->private_data;
	struct stp_procfs_data d;
	ssize_t rc;
	int i;

	if (!f->nwrites)
		return -EIO;
	n = min3(n, (size_t)MAXSTRINGLEN - 1, f->size - 1);
	if (mutex_lock_interruptible(&f->lock))
		return -ERESTARTSYS;
	rc = -EFAULT;
	if (copy_from_user(f->wbuf, ubuf, n))
		goto out;
	f->wbuf[n] = '\0';
	rc = n;
	for (i = 0; i < f->nwrites && rc > 0; i++) {
		d = (struct stp_procfs_data){ f->wbuf, MAXSTRINGLEN, n };
		/* not running, or an error: the data was not taken */
		if (!stp_may_run(STP_PROBE_PROCFS) || !stp_run_probe_data(f->writes[i], &d))
			rc = -EIO;
	}
	if (rc > 0)
		*pos += rc;
out:
	mutex_unlock(&f->lock);
	return rc;
}

#ifdef STP_PROC_OPS
static const struct proc_ops stp_procfs_ops = {
	.proc_open = stp_procfs_open,
	.proc_release = stp_procfs_release,
	.proc_read = stp_procfs_read,
	.proc_write = stp_procfs_write,
	.proc_lseek = default_llseek,
};
#else
static const struct file_operations stp_procfs_ops = {
	.owner = THIS_MODULE,
	.open = stp_procfs_open,
	.release = stp_procfs_release,
	.read = stp_procfs_read,
	.write = stp_procfs_write,
	.llseek = default_llseek,
};
#endif

/* ---- set-up: module init groups the probes by path ---- */

static struct stp_procfs_file *stp_procfs_find(const char *path)
{
	int i;

	for (i = 0; i < stp_procfs_nfiles; i++)
		if (!strcmp(stp_procfs_files[i].path, path))
			return &stp_procfs_files[i];
	return NULL;
}

/* The file's mode, as 4.8 makes it: a read probe gives 0400 (0444 with a
 * umask), write probes 0200 (0222 with a umask); the umasks of all the
 * path's probes then clear their bits. */
static void stp_procfs_mode(struct stp_procfs_file *f, const struct stp_probe *p,
			    umode_t *umask)
{
	bool um = p->procfs_umask >= 0;

	if (p->procfs_write)
		f->mode |= um ? 0222 : 0200;
	else
		f->mode |= um ? 0444 : 0400;
	if (um)
		*umask |= p->procfs_umask;
}

/* The files of the procfs probes, with their read probe and size; the
 * write probes only counted. */
static void stp_procfs_group(void)
{
	struct stp_procfs_file *f;
	int i;

	for (i = 0; i < STP_NPROBES; i++) {
		const struct stp_probe *p = &stp_probes[i];

		if (p->kind != STP_PROBE_PROCFS)
			continue;
		f = stp_procfs_find(p->procfs_path);
		if (!f) {
			f = &stp_procfs_files[stp_procfs_nfiles++];
			f->path = p->procfs_path;
			f->size = MAXSTRINGLEN;
			mutex_init(&f->lock);
			init_waitqueue_head(&f->waitq);
		}
		if (p->procfs_write) {
			f->nwrites++;
		} else {
			f->read = p;
			if (p->procfs_maxsize > 0)
				f->size = p->procfs_maxsize;
		}
	}
}

/* Each file's write probes in table order, its mode and its buffers. */
static int stp_procfs_finish(void)
{
	struct stp_procfs_file *f;
	int i, w = 0;

	for (i = 0; i < stp_procfs_nfiles; i++) {
		f = &stp_procfs_files[i];
		f->writes = &stp_procfs_wlist[w];
		w += f->nwrites;
		f->nwrites = 0;
		f->buf = kzalloc(f->size, GFP_KERNEL);
		f->wbuf = kzalloc(MAXSTRINGLEN, GFP_KERNEL);
		if (!f->buf || !f->wbuf)
			return -ENOMEM;
	}
	for (i = 0; i < STP_NPROBES; i++) {
		const struct stp_probe *p = &stp_probes[i];
		umode_t umask = 0;

		if (p->kind != STP_PROBE_PROCFS)
			continue;
		f = stp_procfs_find(p->procfs_path);
		if (p->procfs_write)
			f->writes[f->nwrites++] = p;
		stp_procfs_mode(f, p, &umask);
		f->umask |= umask;
	}
	for (i = 0; i < stp_procfs_nfiles; i++)
		stp_procfs_files[i].mode &= ~stp_procfs_files[i].umask;
	return 0;
}

/* Process context, at module init. */
static int stp_procfs_init(void)
{
	int i, n = 0, nw = 0;

	for (i = 0; i < STP_NPROBES; i++) {
		if (stp_probes[i].kind != STP_PROBE_PROCFS)
			continue;
		n++;
		nw += stp_probes[i].procfs_write;
		stp_procfs_maxdirs += 1 + strlen(stp_probes[i].procfs_path);
	}
	if (!n)
		return 0;
	stp_procfs_files = kcalloc(n, sizeof(*stp_procfs_files), GFP_KERNEL);
	stp_procfs_wlist = kcalloc(max(nw, 1), sizeof(*stp_procfs_wlist), GFP_KERNEL);
	stp_procfs_dirs = kcalloc(stp_procfs_maxdirs, sizeof(*stp_procfs_dirs), GFP_KERNEL);
	if (!stp_procfs_files || !stp_procfs_wlist || !stp_procfs_dirs)
		return -ENOMEM;
	stp_procfs_group();
	return stp_procfs_finish();
}

/* The directory for the first len bytes of path (under the module's),
 * made if new. */
static struct proc_dir_entry *stp_procfs_dir(const char *path, size_t len)
{
	struct proc_dir_entry *parent = stp_procfs_moddir, *pde;
	const char *slash;
	char *name;
	int i;

	if (!len)
		return parent;
	for (i = 0; i < stp_procfs_ndirs; i++)
		if (stp_procfs_dirs[i].len == len &&
		    !strncmp(stp_procfs_dirs[i].path, path, len))
			return stp_procfs_dirs[i].pde;
	for (slash = path + len - 1; slash > path && *slash != '/'; slash--)
		;
	if (*slash == '/') {
		parent = stp_procfs_dir(path, slash - path);
		if (!parent)
			return NULL;
		slash++;
	} else {
		slash = path;
	}
	if (stp_procfs_ndirs == stp_procfs_maxdirs)
		return NULL;
	name = kstrndup(slash, path + len - slash, GFP_KERNEL);
	if (!name)
		return NULL;
	pde = proc_mkdir(name, parent);
	kfree(name);
	if (pde)
		stp_procfs_dirs[stp_procfs_ndirs++] = (struct stp_procfs_dir){ path, len, pde };
	return pde;
}

static void stp_procfs_unregister(void);

static bool stp_proc_path_exists(const char *name)
{
	struct path p;

	if (kern_path(name, LOOKUP_DIRECTORY, &p))
		return false;
	path_put(&p);
	return true;
}

/* Once the session runs (a file that exists can always be read), process
 * context: /proc/systemtap/<module>/PATH... */
static void stp_procfs_register(void)
{
	char top[sizeof(STP_PROCFS_TOP) + MODULE_NAME_LEN + 1];
	int i;

	if (!stp_procfs_nfiles || stp_procfs_moddir)
		return;
	snprintf(top, sizeof(top), STP_PROCFS_TOP "/%s", THIS_MODULE->name);
	/* /proc/systemtap is shared and never removed, as in 4.8; procfs
	 * warns about a missing parent and about a duplicate, so look first
	 * (two modules making it at the same moment only get the warning) */
	if (!stp_proc_path_exists("/proc/" STP_PROCFS_TOP))
		proc_mkdir(STP_PROCFS_TOP, NULL);
	stp_procfs_moddir = proc_mkdir(top, NULL);
	if (!stp_procfs_moddir) {
		stp_error_msg("Could not create directory \"/proc/%s\"", top);
		return;
	}
	for (i = 0; i < stp_procfs_nfiles; i++) {
		struct stp_procfs_file *f = &stp_procfs_files[i];
		const char *slash = strrchr(f->path, '/');
		const char *name = slash ? slash + 1 : f->path;
		struct proc_dir_entry *dir;

		f->dying = false;
		dir = stp_procfs_dir(f->path, slash ? slash - f->path : 0);
		if (!dir || !proc_create_data(name, f->mode, dir, &stp_procfs_ops, f)) {
			stp_error_msg("Could not create procfs file \"%s\"", f->path);
			stp_procfs_unregister();
			return;
		}
	}
}

/* Session stop or unload, process context: openers waiting give up, then
 * the whole tree goes once the operations in progress are done. */
static void stp_procfs_unregister(void)
{
	int i;

	if (!stp_procfs_moddir)
		return;
	for (i = 0; i < stp_procfs_nfiles; i++) {
		WRITE_ONCE(stp_procfs_files[i].dying, true);
		wake_up_all(&stp_procfs_files[i].waitq);
	}
	proc_remove(stp_procfs_moddir);
	stp_procfs_moddir = NULL;
	stp_procfs_ndirs = 0;
}

static void stp_procfs_free(void)
{
	int i;

	for (i = 0; stp_procfs_files && i < stp_procfs_nfiles; i++) {
		kfree(stp_procfs_files[i].buf);
		kfree(stp_procfs_files[i].wbuf);
		mutex_destroy(&stp_procfs_files[i].lock);
	}
	kfree(stp_procfs_files);
	kfree(stp_procfs_wlist);
	kfree(stp_procfs_dirs);
	stp_procfs_files = NULL;
	stp_procfs_wlist = NULL;
	stp_procfs_dirs = NULL;
	stp_procfs_nfiles = 0;
}

/* The files are made once the session runs and removed first at stop. */
static const struct stp_family_ops stp_procfs_family = {
	.name = "procfs",
	.init = stp_procfs_init,
	.start = stp_procfs_register,
	.unregister_probes = stp_procfs_unregister,
	.free = stp_procfs_free,
};
