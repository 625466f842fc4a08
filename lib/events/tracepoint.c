/* tracepoint: see events.h */
