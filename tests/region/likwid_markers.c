/* A program written for likwid's marker API that reads its own results:
 * LIKWID_MARKER_GET after three calls of a region, LIKWID_MARKER_RESET, two
 * more calls, GET again, SWITCH in between (one event group: no change),
 * GET of a tag never started. Compiled unchanged against pmukit's
 * likwid-marker.h by likwid_compile.sh, which checks the printed lines:
 *   get <when> count=<calls> nevents=<n> time=<s> sum=<level 1 sum> */
#include <stdio.h>
#include <likwid-marker.h>

static volatile double sink;

static void work(void)
{
	for (int i = 0; i < 2000000; i++)
		sink += i * 0.5;
}

static void get(const char *when, const char *tag)
{
	int nevents = 20, count = -1;
	double events[20], time = -1, sum = 0;
	LIKWID_MARKER_GET(tag, &nevents, events, &time, &count);
	for (int i = 0; i < nevents && i < 4; i++)
		sum += events[i];
	printf("get %s count=%d nevents=%d time=%.6f sum=%.1f\n", when, count, nevents, time,
	       sum);
}

int main(void)
{
	LIKWID_MARKER_INIT;
	LIKWID_MARKER_THREADINIT;
	LIKWID_MARKER_REGISTER("loop");
	for (int r = 0; r < 3; r++) {
		LIKWID_MARKER_START("loop");
		work();
		LIKWID_MARKER_STOP("loop");
	}
	get("first", "loop");
	LIKWID_MARKER_RESET("loop");
	get("reset", "loop");
	LIKWID_MARKER_SWITCH;
	for (int r = 0; r < 2; r++) {
		LIKWID_MARKER_START("loop");
		work();
		LIKWID_MARKER_STOP("loop");
	}
	get("again", "loop");
	get("unknown", "never");
	LIKWID_MARKER_CLOSE;
	return 0;
}
