/*
 * base.h - the door to the lowest layer: memory, strings, errors (util.h)
 * and the bit sets and relations every layer above computes with (bits.h).
 */
#ifndef LKMM_BASE_H
#define LKMM_BASE_H

#include "bits.h"
#include "util.h"

#endif
