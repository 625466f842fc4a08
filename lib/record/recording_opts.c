/* perf record's option words that set more than one field of a recording
 * (recording.h): --call-graph MODE[,SIZE] as perf 6.1 takes it.
 *
 * Invariants: on an error the options are left as they were and err
 * quotes the word (perf's message for a bad stack dump size). */
#include <pmukit/recording.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* dwarf's SIZE: the user stack dump, rounded up to 8 bytes, 8..65528. */
static int dwarf_size(const char *s, uint32_t *out, pk_error *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	v = (v + 7) & ~7ULL;
	if (errno || end == s || *end || !v || v > PK_STACK_DUMP_MAX)
		return pk_err(err, -EINVAL, "callchain: Incorrect stack dump size (max %u): %s",
			      PK_STACK_DUMP_MAX, s);
	*out = (uint32_t)v;
	return 0;
}

int pk_recording_call_graph(pk_recording_opts *o, const char *arg, pk_error *err)
{
	const char *comma = strchr(arg, ',');
	size_t n = comma ? (size_t)(comma - arg) : strlen(arg);
	if (n == 5 && !strncmp(arg, "dwarf", 5)) {
		uint32_t size = o->stack_dump;
		if (comma && dwarf_size(comma + 1, &size, err) < 0)
			return err->code;
		o->call_graph = PK_CALL_GRAPH_DWARF;
		o->stack_dump = size;
		o->sample_addr = true; /* perf's record does, for the data maps */
		return 0;
	}
	if (n == 2 && !strncmp(arg, "fp", 2)) {
		o->call_graph = PK_CALL_GRAPH_FP;
		/* perf keeps N below the kernel's default perf_event_max_stack (127) */
		unsigned long v = comma ? strtoul(comma + 1, NULL, 0) : 0;
		o->max_stack = v < 127 ? (uint16_t)v : 0;
		return 0;
	}
	if (n == 3 && !strncmp(arg, "lbr", 3) && !comma) {
		o->call_graph = PK_CALL_GRAPH_LBR;
		return 0;
	}
	return pk_err(err, -EINVAL, "--call-graph takes fp, dwarf[,SIZE] or lbr, not '%s'", arg);
}
