/* Text fields the CLI writes for other programs to parse: one JSON string
 * writer and one CSV field writer, so that every command escapes and quotes
 * the same way.
 *
 * Invariants: out_json_str writes exactly what jansson's json_dumps(flags 0)
 * writes for a string that is valid UTF-8, because jansson escapes it (only
 * the plain strings below skip it; checked for every byte and for long
 * strings in tests/cli/test_textout.c); a byte that is not part of
 * valid UTF-8 (jansson refuses the whole string) becomes \uFFFD, so the
 * line stays valid JSON. Strings made only of printable ASCII without '"'
 * or '\\' are written as they are, in one fwrite after a table scan (the
 * hot path of script's --jsonl over millions of SPE records).
 * out_csv_field quotes per RFC 4180 only a field that holds the separator,
 * a quote, CR or LF, so ordinary fields are written unchanged. */
#ifndef PMUKIT_TEXTOUT_H
#define PMUKIT_TEXTOUT_H

#include <stdio.h>

/* s as a JSON string literal, quotes included. */
void out_json_str(FILE *o, const char *s);

/* s as one CSV field: quoted ("" for each quote) when it holds sep (any
 * length), a quote, CR or LF; else as is. */
void out_csv_field(FILE *o, const char *s, const char *sep);
/* sep, then s as one CSV field: the next field of a line. */
void out_csv_next(FILE *o, const char *s, const char *sep);

#endif
