#pragma once

// The meta device in the seed's staging-header form. The declarations live in ggml-backend.h
// (as in the family's current release); this header only keeps programs that include it
// building. A program that zeroes the split state and never sets nr gets one repeat per segment.

#include "ggml.h"
#include "ggml-backend.h"
