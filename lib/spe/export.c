/* Arm SPE records as table rows: one column per field of a record, named
 * and printed as Arm's spe-parser names and prints them (cpu, op, pc, el,
 * condition, indirect, event, issue_lat, total_lat, ... ts), for CSV and
 * JSON Lines exports. A field the record lacks is the empty text; the
 * caller decides how to show it (an empty CSV cell, a JSON null). Pure
 * formatting: no I/O, no allocation. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <pmukit/spe.h>

static const struct column {
	const char *name;
	bool numeric;            /* a JSON number, else a string */
} columns[PK_SPE_NR_COLUMNS] = {
	{"op", false},        {"pc", false},        {"el", true},          {"condition", false},
	{"indirect", false},  {"event", false},     {"issue_lat", true},   {"total_lat", true},
	{"xlat_lat", true},   {"br_tgt", false},    {"br_tgt_lvl", true},  {"pbt", false},
	{"pbt_lvl", true},    {"vaddr", false},     {"paddr", false},      {"data_source", false},
	{"context", true},    {"ts", true},
};

const char *pk_spe_column_name(unsigned col)
{
	return col < PK_SPE_NR_COLUMNS ? columns[col].name : NULL;
}

bool pk_spe_column_numeric(unsigned col)
{
	return col < PK_SPE_NR_COLUMNS && columns[col].numeric;
}

static const char *op_name(const pk_spe_record *r)
{
	if (!(r->present & PK_SPE_HAS_OP))
		return "";
	switch (r->op_class) {
	case PK_SPE_OP_BRANCH: return "B";
	case PK_SPE_OP_LDST: return r->op & 1 ? "ST" : "LD";
	default: return "OTHER";
	}
}

/* EVENTS as spe-parser writes them: perf's names joined by ':'. */
static void events_text(const pk_spe_record *r, uint32_t midr, char *out, size_t size)
{
	if (!(r->present & PK_SPE_HAS_EVENTS) || size < 4) {
		*out = 0;
		return;
	}
	pk_spe_packet p = {.type = PK_SPE_EVENTS, .payload = r->events, .payload_len = 8};
	char t[512];
	pk_spe_packet_desc(&p, midr, t, sizeof t);
	const char *names = strncmp(t, "EV", 2) ? t : t + 2 + (t[2] == ' ');
	snprintf(out, size, "%s", names);
	for (char *c = out; *c; c++)
		if (*c == ' ')
			*c = ':';
}

static int hex_if(char *out, size_t size, bool has, uint64_t v)
{
	return has ? snprintf(out, size, "0x%" PRIx64, v) : snprintf(out, size, "%s", "");
}

int pk_spe_record_column(const pk_spe_record *r, unsigned col, uint32_t midr, char *out,
			 size_t size)
{
	if (!size)
		return 0;
	bool br = (r->present & PK_SPE_HAS_OP) && r->op_class == PK_SPE_OP_BRANCH;
	const char *src;
	switch (col) {
	case PK_SPE_COL_OP: return snprintf(out, size, "%s", op_name(r));
	case PK_SPE_COL_PC: return hex_if(out, size, r->present & PK_SPE_HAS_PC, r->pc);
	case PK_SPE_COL_EL: return snprintf(out, size, "%u", r->pc_el);
	case PK_SPE_COL_CONDITION:
		return snprintf(out, size, "%s", !br ? "" : r->op & 1 ? "true" : "false");
	case PK_SPE_COL_INDIRECT:
		return snprintf(out, size, "%s", !br ? "" : r->op & 2 ? "true" : "false");
	case PK_SPE_COL_EVENT: events_text(r, midr, out, size); return (int)strlen(out);
	case PK_SPE_COL_ISSUE_LAT: return snprintf(out, size, "%u", r->lat_issue);
	case PK_SPE_COL_TOTAL_LAT: return snprintf(out, size, "%u", r->lat_total);
	case PK_SPE_COL_XLAT_LAT: return snprintf(out, size, "%u", r->lat_xlat);
	case PK_SPE_COL_BR_TGT: return hex_if(out, size, r->present & PK_SPE_HAS_TGT, r->tgt);
	case PK_SPE_COL_BR_TGT_LVL: return snprintf(out, size, "%u", r->tgt_el);
	case PK_SPE_COL_PBT: return hex_if(out, size, r->present & PK_SPE_HAS_PBT, r->pbt);
	case PK_SPE_COL_PBT_LVL: return snprintf(out, size, "%u", r->pbt_el);
	case PK_SPE_COL_VADDR: return hex_if(out, size, r->present & PK_SPE_HAS_VA, r->va);
	case PK_SPE_COL_PADDR: return hex_if(out, size, r->present & PK_SPE_HAS_PA, r->pa);
	case PK_SPE_COL_DATA_SOURCE:
		if (!(r->present & PK_SPE_HAS_SOURCE))
			return snprintf(out, size, "%s", "");
		src = pk_spe_source_name(midr, r->source);
		return src ? snprintf(out, size, "%s", src)
			   : snprintf(out, size, "%" PRIu64, r->source);
	case PK_SPE_COL_CONTEXT:
		return r->present & PK_SPE_HAS_CONTEXT ? snprintf(out, size, "%" PRIu32, r->context)
						       : snprintf(out, size, "%s", "");
	case PK_SPE_COL_TS: return snprintf(out, size, "%" PRIu64, r->timestamp);
	default: *out = 0; return 0;
	}
}
