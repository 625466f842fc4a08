/* encode: see events.h */
