/* parse: placeholder, being written */
#include <errno.h>
#include <pmukit/events.h>
int pk_evlist_parse(pk_evlist *evlist, const pk_pmus *pmus, const char *str,
		    const pk_parse_opts *opts, pk_error *err)
{
	(void)evlist; (void)pmus; (void)opts;
	return pk_err_at(err, -ENOSYS, "event syntax error", str, 0, "not implemented yet");
}
