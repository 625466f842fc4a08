/* Byte order: files written on a machine of the other endianness are swapped
 * field by field as they are read, so the rest of the reader sees native
 * records. */
#include "pd_internal.h"

/* Attr field offsets (include/uapi/linux/perf_event.h). */
#define ATTR_FLAGS_OFF 40

static uint8_t rev8(uint8_t b)
{
	b = (uint8_t)((b & 0xf0) >> 4 | (b & 0x0f) << 4);
	b = (uint8_t)((b & 0xcc) >> 2 | (b & 0x33) << 2);
	b = (uint8_t)((b & 0xaa) >> 1 | (b & 0x55) << 1);
	return b;
}

void pki_pd_attr_from_file(const uint8_t *src, size_t size, bool swap, struct perf_event_attr *attr,
		       uint64_t *config3)
{
	uint8_t tmp[PD_ATTR_SIZE_VER8];
	memset(tmp, 0, sizeof(tmp));
	if (size > sizeof(tmp))
		size = sizeof(tmp);
	memcpy(tmp, src, size);
	if (swap) {
		/* u32 type, size; then u64s up to the flag word */
		pd_sw32(tmp + 0);
		pd_sw32(tmp + 4);
		for (size_t o = 8; o < ATTR_FLAGS_OFF; o += 8)
			pd_sw64(tmp + o);
		/* The flag bitfield: big-endian compilers allocate bitfields
		 * from the most significant bit, so the bytes keep their order
		 * and the bits within each byte are reversed. */
		for (size_t o = ATTR_FLAGS_OFF; o < ATTR_FLAGS_OFF + 8; o++)
			tmp[o] = rev8(tmp[o]);
		pd_sw32(tmp + 48); /* wakeup_events / watermark */
		pd_sw32(tmp + 52); /* bp_type */
		pd_sw64(tmp + 56); /* config1 */
		pd_sw64(tmp + 64); /* config2 */
		pd_sw64(tmp + 72); /* branch_sample_type */
		pd_sw64(tmp + 80); /* sample_regs_user */
		pd_sw32(tmp + 88); /* sample_stack_user */
		pd_sw32(tmp + 92); /* clockid */
		pd_sw64(tmp + 96); /* sample_regs_intr */
		pd_sw32(tmp + 104); /* aux_watermark */
		pd_sw16(tmp + 108); /* sample_max_stack */
		pd_sw16(tmp + 110);
		pd_sw32(tmp + 112); /* aux_sample_size */
		pd_sw32(tmp + 116);
		pd_sw64(tmp + 120); /* sig_data */
		pd_sw64(tmp + PD_ATTR_SIZE_VER7); /* config3 */
	}
	memset(attr, 0, sizeof(*attr));
	size_t n = sizeof(*attr) < size ? sizeof(*attr) : size;
	memcpy(attr, tmp, n);
	*config3 = pd_ld64(tmp + PD_ATTR_SIZE_VER7);
	attr->size = (uint32_t)size;
}

/* Layouts of the fixed parts: 'I' u32, 'Q' u64, 'H' u16, 'B' byte, 'Q*' the
 * rest is u64s, 'S' the rest is a string or bytes (not swapped). */
static const char *layout(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_MMAP: return "IIQQQS";
	case PERF_RECORD_MMAP2: return NULL; /* build id variant: by hand */
	case PERF_RECORD_COMM: return "IIS";
	case PERF_RECORD_EXIT:
	case PERF_RECORD_FORK: return "IIIIQ";
	case PERF_RECORD_LOST: return "QQ";
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE: return "QQQ";
	case PERF_RECORD_READ: return "IIA";
	case PERF_RECORD_AUX: return "QQQ";
	case PERF_RECORD_ITRACE_START: return "II";
	case PERF_RECORD_LOST_SAMPLES: return "Q";
	case PERF_RECORD_SWITCH: return "";
	case PERF_RECORD_SWITCH_CPU_WIDE: return "II";
	case PERF_RECORD_NAMESPACES: return "IIA";
	case PERF_RECORD_KSYMBOL: return "QIHHS";
	case PERF_RECORD_BPF_EVENT: return "HHIS";
	case PERF_RECORD_CGROUP: return "QS";
	case PERF_RECORD_TEXT_POKE: return "QHHS";
	case PD_RECORD_AUX_OUTPUT_HW_ID: return "Q";
	case PK_RECORD_HEADER_EVENT_TYPE: return "QS";
	case PK_RECORD_HEADER_TRACING_DATA: return "I";
	case PK_RECORD_HEADER_BUILD_ID: return "IS";
	case PK_RECORD_ID_INDEX: return "A";
	case PK_RECORD_AUXTRACE_INFO: return "IIA";
	case PK_RECORD_AUXTRACE: return "QQQIIII";
	case PK_RECORD_AUXTRACE_ERROR: return "IIIIIIQQ";
	case PK_RECORD_STAT_CONFIG: return "A";
	case PK_RECORD_STAT: return "QIIQQQ";
	case PK_RECORD_STAT_ROUND: return "QQ";
	case PK_RECORD_TIME_CONV: return "QQQQQS";
	case PK_RECORD_HEADER_FEATURE: return "QS"; /* payload swapped by its parser */
	default: return "S";
	}
}

/* Applies a layout to [p, end); returns where it stopped. */
static uint8_t *swap_layout(const char *l, uint8_t *p, uint8_t *end)
{
	for (; *l; l++) {
		switch (*l) {
		case 'I':
			if (end - p < 4)
				return p;
			pd_sw32(p);
			p += 4;
			break;
		case 'H':
			if (end - p < 2)
				return p;
			pd_sw16(p);
			p += 2;
			break;
		case 'Q':
			if (end - p < 8)
				return p;
			pd_sw64(p);
			p += 8;
			break;
		case 'A':
			while (end - p >= 8) {
				pd_sw64(p);
				p += 8;
			}
			return p;
		default:
			return p;
		}
	}
	return p;
}

static void swap_thread_map(uint8_t *p, uint8_t *end)
{
	if (end - p < 8)
		return;
	pd_sw64(p);
	p += 8;
	while (end - p >= 24) {
		pd_sw64(p);
		p += 24;
	}
}

/* cpu_map_data: u16 type, then per type (perf's packed layouts). */
static void swap_cpu_map(uint8_t *p, uint8_t *end)
{
	if (end - p < 2)
		return;
	pd_sw16(p);
	uint16_t type = pd_ld16(p);
	p += 2;
	if (type == 0) { /* u16 nr, u16 cpu[nr] */
		while (end - p >= 2) {
			pd_sw16(p);
			p += 2;
		}
	} else if (type == 1) { /* u16 nr, u16 long_size, [pad], mask[] */
		if (end - p < 4)
			return;
		pd_sw16(p);
		pd_sw16(p + 2);
		uint16_t long_size = pd_ld16(p + 2);
		p += 4;
		if (long_size == 8) {
			p += 4;
			while (end - p >= 8) {
				pd_sw64(p);
				p += 8;
			}
		} else {
			while (end - p >= 4) {
				pd_sw32(p);
				p += 4;
			}
		}
	} else if (type == 2) { /* u8 any_cpu, u8 pad, u16 start, end */
		if (end - p >= 6) {
			pd_sw16(p + 2);
			pd_sw16(p + 4);
		}
	}
}

void pki_pd_swap_record(uint8_t *rec, size_t size, const pk_pd_evsel *ev)
{
	uint32_t type = pd_ld32(rec);
	uint8_t *end = rec + size;
	uint8_t *body = rec + 8;
	bool kernel = type < PK_RECORD_HEADER_ATTR;
	if (kernel && ev && ev->attr.sample_id_all) {
		size_t tsz = pki_pd_trailer_size(ev->attr.sample_type);
		if (tsz <= size - 8) {
			pki_pd_swap_trailer(rec, size, ev->attr.sample_type);
			end -= tsz;
		}
	}
	switch (type) {
	case PERF_RECORD_MMAP2: {
		uint16_t misc = pd_ld16(rec + 4);
		uint8_t *p = swap_layout("IIQQQ", body, end);
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID)
			p += 24; /* u8 size, u8, u16, u8 build_id[20]: bytes */
		else
			p = swap_layout("IIQQ", p, end);
		if (p <= end)
			swap_layout("II", p, end);
		break;
	}
	case PK_RECORD_THREAD_MAP:
		swap_thread_map(body, end);
		break;
	case PK_RECORD_CPU_MAP:
		swap_cpu_map(body, end);
		break;
	case PK_RECORD_EVENT_UPDATE: {
		uint8_t *p = swap_layout("QQ", body, end);
		uint64_t kind = end - body >= 8 ? pd_ld64(body) : 0;
		if (kind == PD_EVENT_UPDATE_SCALE)
			swap_layout("Q", p, end);
		else if (kind == PD_EVENT_UPDATE_CPUS)
			swap_cpu_map(p, end);
		break;
	}
	default:
		swap_layout(layout(type), body, end);
		break;
	}
}
