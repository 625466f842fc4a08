/* perf's control channel (record --control, what perf daemon speaks to its
 * sessions): commands as text on a control fd or fifo, each answered with
 * "ack\n" and a NUL (perf 6.1's bytes) on an ack fd or fifo.
 *
 * The recording's side (ctl_open, ctl_next, ctl_ack) reads without
 * blocking: a command ends at '\n' or '\0', or where one read's bytes end
 * (perf takes `echo -n enable > ctl` too). The daemon's side (ctl_send)
 * opens the fifos for one exchange: a fifo no recording holds open yet is
 * refused at once (-ENXIO), an ack not back within the timeout is
 * -ETIMEDOUT. Acks left over from an earlier timed-out exchange are drained
 * before a command is sent, so an ack always answers its own command. */
#ifndef PMUKIT_CTL_FIFO_H
#define PMUKIT_CTL_FIFO_H

#include <stdbool.h>
#include <stddef.h>

typedef enum ctl_cmd {
	CTL_NONE,      /* nothing (complete) to read now */
	CTL_ENABLE,    /* "enable" */
	CTL_DISABLE,   /* "disable" */
	CTL_SNAPSHOT,  /* "snapshot" */
	CTL_PING,      /* "ping" */
	CTL_STOP,      /* "stop" */
	CTL_EVLIST,    /* "evlist" */
	CTL_UNKNOWN,   /* anything else: the text in arg */
} ctl_cmd;

typedef struct ctl_chan {
	int ctl_fd, ack_fd;  /* -1: none */
	bool own;            /* opened here (fifo:), closed by ctl_close */
	char buf[256];
	size_t len;
} ctl_chan;

/* The channel of --control SPEC: "fifo:CTL[,ACK]" (the fifos opened
 * read-write, so a writer going away is no end) or "fd:CTL[,ACK]". 0; -1
 * for a SPEC not of these forms or fds not open, -2 for fifos that cannot
 * be opened; why said in why. */
int ctl_open(ctl_chan *c, const char *spec, char *why, size_t n);
/* The next command; its argument (after the word) or the unknown text in
 * arg (n bytes, may be NULL). */
ctl_cmd ctl_next(ctl_chan *c, char *arg, size_t n);
/* "ack\n\0" on the ack fd, when there is one. */
void ctl_ack(ctl_chan *c);
void ctl_close(ctl_chan *c);

/* One exchange from outside: cmd written to the fifo ctl, "ack\n" awaited
 * on the fifo ack for timeout_ms. 0, -ENXIO (no recording reads ctl),
 * -ETIMEDOUT, -EPIPE (ack closed: the recording is gone) or another
 * negative errno. */
int ctl_send(const char *ctl, const char *ack, const char *cmd, int timeout_ms);

#endif
