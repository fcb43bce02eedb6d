/*
 * stp_usyms.h - the tables pass 3 writes for each user object named with
 * `stap -d` (and `--ldd`): its symbols, load segments and unwind sections.
 * translator/usyms.c writes them; ustack.c reads them.
 */
#ifndef STP_USYMS_H
#define STP_USYMS_H

struct stp_useg {
	unsigned long off, vaddr, filesz;	/* a PT_LOAD segment; filesz 0 ends */
};

struct stp_umod {
	const char *path;		/* canonical path, as printed */
	const char *name;		/* its last component */
	unsigned long file_size;	/* with name, identifies the mapped file */
	int is_dyn;			/* ET_DYN: addresses are relative to the base */
	const struct stp_useg *segs;
	int nsegs;
	const unsigned long *sym_addr;	/* sorted link-time addresses */
	const char *const *sym_name;
	unsigned long nsyms;
	unsigned long sym_end;		/* end of the last symbol */
	const unsigned char *eh, *hdr;	/* .eh_frame, .eh_frame_hdr; NULL: none */
	unsigned long eh_len, eh_addr, hdr_len, hdr_addr;
	/* source lines (only when the script looks them up): sorted
	 * link-time addresses, file << 20 | line from each (0: no line) */
	const unsigned int *line_addr, *line_info;
	const char *const *line_file;
	unsigned long nlines;
};

#endif /* STP_USYMS_H */
