/* names: see events.h */
