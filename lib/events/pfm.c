/* pfm: see events.h */
