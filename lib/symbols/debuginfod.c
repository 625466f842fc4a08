/* Binaries by build id from debuginfod servers, opt-in.
 *
 * When a recorded binary is neither in perf's build-id cache nor at its
 * path with its build id, and $DEBUGINFOD_URLS names servers (the client
 * library's own switch; unset or empty: nothing is asked), the executable
 * of that build id is asked for through libdebuginfod (elfutils), as perf
 * built with it does. The library is loaded with dlopen on first use, so
 * that it is no dependency: without it, nothing is asked. It keeps what it
 * fetched in its own cache ($DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client); the file it gives is checked like any other
 * (pki_sy_open_recorded: its build id must be the recorded one). */
#include "sy_internal.h"
#include "core/util.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* libdebuginfod's client calls (elfutils/debuginfod.h) */
typedef void *(*client_begin_fn)(void);
typedef int (*find_executable_fn)(void *client, const unsigned char *id, int len, char **path);
typedef void (*client_end_fn)(void *client);

static struct {
	client_begin_fn begin;
	find_executable_fn find;
	client_end_fn end;
} dbgd;
static pthread_once_t dbgd_once = PTHREAD_ONCE_INIT;

static void dbgd_load(void)
{
	void *h = dlopen("libdebuginfod.so.1", RTLD_LAZY | RTLD_LOCAL); /* never closed */
	if (!h)
		return;
	dbgd.begin = (client_begin_fn)dlsym(h, "debuginfod_begin");
	dbgd.find = (find_executable_fn)dlsym(h, "debuginfod_find_executable");
	dbgd.end = (client_end_fn)dlsym(h, "debuginfod_end");
}

char *pki_sy_debuginfod_path(const char *hex)
{
	const char *urls = pki_env("DEBUGINFOD_URLS");
	size_t n = strlen(hex) / 2;
	unsigned char id[20];
	if (!urls || !*urls || !n || n > sizeof(id))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		char byte[3] = {hex[2 * i], hex[2 * i + 1], '\0'};
		id[i] = (unsigned char)strtoul(byte, NULL, 16);
	}
	pthread_once(&dbgd_once, dbgd_load);
	if (!dbgd.begin || !dbgd.find || !dbgd.end)
		return NULL;
	void *client = dbgd.begin();
	if (!client)
		return NULL;
	char *path = NULL;
	int fd = dbgd.find(client, id, (int)n, &path);
	dbgd.end(client);
	if (fd < 0)
		return NULL;
	close(fd); /* reopened and checked by the caller */
	return path;
}
