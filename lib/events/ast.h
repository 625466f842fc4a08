/* Internal: the syntax tree of a perf event string, between parse.c (text ->
 * tree) and encode.c (tree -> evsels). Positions are byte offsets into the
 * string, kept so every later error can point at its cause. */
#ifndef PK_EVENTS_AST_H
#define PK_EVENTS_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pmukit/error.h>

typedef struct pk_term {
	char *name;
	char *value;          /* NULL when the term is a bare name */
	int pos;              /* of the name */
	int value_pos;        /* of the value, -1 when absent */
} pk_term;

typedef enum pk_ev_kind {
	PK_EV_PMU,            /* pmu/terms/ */
	PK_EV_RAW,            /* rNNN */
	PK_EV_NAME,           /* symbolic, sysfs alias or named (libpfm4) event */
	PK_EV_TRACEPOINT,     /* sys:name */
	PK_EV_BREAKPOINT,     /* mem:addr[/len][:rwx] */
	PK_EV_PFM,            /* libpfm4 fully qualified pmu::EVENT[:UMASK...] */
} pk_ev_kind;

typedef struct pk_ev_ast {
	pk_ev_kind kind;
	char *name;           /* PMU, event name, tracepoint subsystem, libpfm name */
	char *name2;          /* tracepoint event name */
	uint64_t raw;         /* rNNN value or breakpoint address */
	uint64_t bp_len;      /* breakpoint length, 0: default */
	unsigned bp_type;     /* HW_BREAKPOINT_R/W/X bits */
	pk_term *terms;
	size_t nr_terms;
	char *mods;           /* modifier letters, NULL when none */
	int mods_pos;
	int pos, len;         /* the event's text, modifiers included */
	int name_pos;
} pk_ev_ast;

typedef struct pk_group_ast {
	pk_ev_ast *events;
	size_t nr;
	bool is_group;        /* written with braces */
	char *group_name;     /* name{...} */
	char *mods;
	int mods_pos;
	int pos, len;
} pk_group_ast;

typedef struct pk_ast {
	pk_group_ast *items;
	size_t nr;
} pk_ast;

#define PK_EVENT_SYNTAX "event syntax error"
/* Modifier letters perf accepts after ':' (or right after a PMU event's '/'). */
#define PK_MODIFIER_CHARS "ukhIGHpPSDWeb"
/* precise_ip is 0..3: at most three 'p' modifiers. */
#define PK_PRECISE_MAX 3

/* Parses terms "a=1,b,c=0x2" (PMU terms or a sysfs alias's text) starting at
 * s[*i] until `stop` or the end. Positions are offsets into s. */
int pki_parse_terms(const char *s, int *i, char stop, pk_term **terms, size_t *nr, pk_error *err);
void pki_terms_free(pk_term *terms, size_t nr);

/* "rNNN": 'r' and hex digits; pki_parse_raw_name also needs it to fit 64 bits
 * (-EINVAL otherwise). One reading for events and for PMU terms. */
bool pki_is_raw_name(const char *name);
int pki_parse_raw_name(const char *name, uint64_t *out);

int pki_ast_parse(const char *s, pk_ast *ast, pk_error *err);
void pki_ast_free(pk_ast *ast);

#endif
