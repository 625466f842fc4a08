/* Synthesized records: the state that existed before recording started,
 * read from /proc, in the form the kernel would have written. */
#include <pmukit/record.h>

#include "pd_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>

#include "core/util.h"

static int emit(const pk_synth *s, pk_pd_buf *b, pk_error *err)
{
	/* zeroed sample_id trailer: perf reads id 0 as "synthesized" */
	if (s->sample_id_all) {
		size_t t = pki_pd_trailer_size(s->sample_type);
		for (size_t i = 0; i < t / 8; i++)
			pk_pd_buf_u64(b, 0);
	}
	if (b->oom)
		return pk_err(err, -ENOMEM, "out of memory");
	if (b->len > 0xffff)
		return 0; /* cannot be one record (absurd file name): leave it out */
	pd_st16(b->data + 6, (uint16_t)b->len);
	return pk_pd_writer_write(s->w, b->data, b->len, err);
}

static void rec_header(pk_pd_buf *b, uint32_t type, uint16_t misc)
{
	b->len = 0;
	pk_pd_buf_u32(b, type);
	pk_pd_buf_u16(b, misc);
	pk_pd_buf_u16(b, 0);
}

int pk_synth_kernel_mmap(const pk_synth *s, pk_error *err)
{
	FILE *f = fopen(s->kallsyms ? s->kallsyms : "/proc/kallsyms", "r");
	uint64_t text = 0, etext = 0;
	if (f) {
		char line[512];
		while (fgets(line, sizeof(line), f)) {
			char *end;
			uint64_t a = strtoull(line, &end, 16);
			if (strstr(end, " _text\n") && !text)
				text = a;
			else if (strstr(end, " _etext\n"))
				etext = a;
			if (text && etext)
				break;
		}
		fclose(f);
	}
	if (!text)
		return 0; /* addresses hidden (kptr_restrict): nothing to map */
	pk_pd_buf b = {0};
	rec_header(&b, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	pk_pd_buf_u32(&b, (uint32_t)-1);
	pk_pd_buf_u32(&b, 0);
	pk_pd_buf_u64(&b, text);
	pk_pd_buf_u64(&b, etext > text ? etext - text : ~0ULL - text);
	pk_pd_buf_u64(&b, text);
	pk_pd_buf_name(&b, "[kernel.kallsyms]_text");
	int rc = emit(s, &b, err);
	pk_pd_buf_release(&b);
	return rc;
}

int pk_synth_comm(const pk_synth *s, pid_t pid, pid_t tid, const char *comm, pk_error *err)
{
	pk_pd_buf b = {0};
	rec_header(&b, PERF_RECORD_COMM, 0);
	pk_pd_buf_u32(&b, (uint32_t)pid);
	pk_pd_buf_u32(&b, (uint32_t)tid);
	pk_pd_buf_name(&b, comm);
	int rc = emit(s, &b, err);
	pk_pd_buf_release(&b);
	return rc;
}

static int synth_maps(const pk_synth *s, pid_t pid, pk_error *err)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/maps", s->proc ? s->proc : "/proc", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0; /* the task is gone */
	char line[4096 + 256];
	pk_pd_buf b = {0};
	int rc = 0;
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		unsigned long start, end, off, ino;
		unsigned maj, min;
		char perms[8];
		int name_at = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %n", &start, &end, perms, &off, &maj, &min,
			   &ino, &name_at) < 7)
			continue;
		/* perf synthesizes the executable mappings by default */
		if (strlen(perms) < 4 || perms[2] != 'x')
			continue;
		char *name = pki_rstrip(line + name_at);
		if (!*name)
			name = "//anon";
		uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
				PROT_EXEC;
		uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		rec_header(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
		pk_pd_buf_u32(&b, (uint32_t)pid);
		pk_pd_buf_u32(&b, (uint32_t)pid);
		pk_pd_buf_u64(&b, start);
		pk_pd_buf_u64(&b, end - start);
		pk_pd_buf_u64(&b, off);
		pk_pd_buf_u32(&b, maj);
		pk_pd_buf_u32(&b, min);
		pk_pd_buf_u64(&b, ino);
		pk_pd_buf_u64(&b, 0);
		pk_pd_buf_u32(&b, prot);
		pk_pd_buf_u32(&b, flags);
		pk_pd_buf_name(&b, name);
		rc = emit(s, &b, err);
	}
	pk_pd_buf_release(&b);
	fclose(f);
	return rc;
}

int pk_synth_task(const pk_synth *s, pid_t pid, bool comm_only, pk_error *err)
{
	const char *proc = s->proc ? s->proc : "/proc";
	char path[256];
	snprintf(path, sizeof(path), "%s/%d/task", proc, (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return 0; /* gone already */
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		char cpath[300], *comm = NULL;
		snprintf(cpath, sizeof(cpath), "%s/%d/task/%ld/comm", proc, (int)pid, tid);
		if (pki_read_file(cpath, &comm, NULL) < 0)
			continue;
		rc = pk_synth_comm(s, pid, (pid_t)tid, pki_rstrip(comm), err);
		free(comm);
	}
	closedir(d);
	if (rc == 0 && !comm_only)
		rc = synth_maps(s, pid, err);
	return rc;
}

int pk_synth_all_tasks(const pk_synth *s, pk_error *err)
{
	DIR *d = opendir(s->proc ? s->proc : "/proc");
	if (!d)
		return pk_err(err, -errno, "cannot list /proc: %s", strerror(errno));
	struct dirent *de;
	int rc = 0;
	while (rc == 0 && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		rc = pk_synth_task(s, (pid_t)pid, false, err);
	}
	closedir(d);
	return rc;
}

int pk_synth_finished_init(const pk_synth *s, pk_error *err)
{
	uint8_t rec[8] = {0};
	pd_st32(rec, PK_RECORD_FINISHED_INIT);
	pd_st16(rec + 6, 8);
	return pk_pd_writer_write(s->w, rec, sizeof(rec), err);
}
