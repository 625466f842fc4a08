/* pmukit CLI: one file per subcommand; this header ties them to main.c. */
#ifndef PMUKIT_BUILTIN_H
#define PMUKIT_BUILTIN_H

#include <stdint.h>
#include <stdio.h>
#include <pmukit/error.h>
#include <pmukit/kernel.h>
#include <pmukit/pmu.h>

#include "cli_opts.h"

struct pk_cmd {
	const char *name;
	int (*run)(int argc, char **argv);  /* argv[0] is the subcommand name */
	const char *summary;
	const pk_optspec *opts;             /* its options: parsing, help, completion */
};

/* man.c: a command's man page (pmukit-CMD(1)) from its option table, and
 * pmukit(1) listing the commands; troff's man macros on out. */
void pk_man_command(const struct pk_cmd *c, FILE *out);
void pk_man_overview(const struct pk_cmd *cmds, size_t n, FILE *out);

int cmd_list(int argc, char **argv);
int cmd_encode(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_evlist(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_buildid_cache(int argc, char **argv);
int cmd_buildid_list(int argc, char **argv);

extern const pk_optspec list_optspec, encode_optspec, stat_optspec, record_optspec,
	report_optspec, script_optspec, diff_optspec, inject_optspec, evlist_optspec,
	daemon_optspec, lock_optspec, bench_optspec, probe_optspec, buildid_cache_optspec,
	buildid_list_optspec;

/* Prints "pmukit <cmd>: " + a rendered error to stderr. */
void pk_cli_print_error(const char *cmd, const pk_error *err);
/* Prints a usage error and the command's help hint; returns the exit code 129
 * that perf uses for bad options. */
int pk_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Refuses an option's value that is empty or blank (-p '', -e ''): says
 * "<opt> '': no <what> given" and returns 129, else 0 (val NULL: not given). */
int pk_cli_nonempty(const char *cmd, const char *opt, const char *val, const char *what);
/* Parses an option's number (decimal, or 0x hex) within [min, max]; on bad
 * input prints a usage error and returns 129 (perf's code), else 0. */
int pk_cli_parse_u64(const char *cmd, const char *opt, const char *arg, uint64_t min,
		     uint64_t max, uint64_t *out);
/* Flushes f and closes it (not stdout or stderr); on any write error says
 * "pmukit <cmd>: cannot write '<name>': <why>" (name NULL: the standard
 * output) and returns -errno. */
int pk_cli_fclose(FILE *f, const char *cmd, const char *name);
/* The local time now, formatted by strftime's fmt into buf (n bytes);
 * returns the nanoseconds past its second (for perf's fractions in logs and
 * file names). */
long pk_cli_local_time(const char *fmt, char *buf, size_t n);
/* --model SCENARIO for list and encode: the scenario's machine, its sysfs
 * root (into root, PATH_MAX bytes) and CPUID (into cpuid, 64 bytes). 0, or
 * 1 with the error said as "pmukit <cmd>: ...". */
int pk_cli_model_machine(const char *cmd, const char *scenario, char *root, char *cpuid);
/* Refuses a --cputype (already mapped by pk_pmus_cputype_name; NULL: none given)
 * that is not a core PMU of a hybrid machine: prints a usage error and
 * returns 129, else 0. */
int pk_cli_check_cputype(const char *cmd, const pk_pmus *pmus, const char *pmu_name);

#endif
