/* pmukit CLI: the self-contained flame graph page (flame_html.c). */
#ifndef PMUKIT_FLAME_HTML_H
#define PMUKIT_FLAME_HTML_H

#include <stddef.h>
#include <stdio.h>

/* The page into f: json (len bytes, pk_flame_json's) drawn, header (the
 * report header's text, NULL: none) in its collapsible block. */
void flame_html_write(FILE *f, const char *json, size_t len, const char *header);

#endif
