// TEMPORARY stubs so the library links before the kernel families exist.
//
// Each family below is one self-contained section between its BEGIN and END markers. When
// src/ggml-cpu/ops-<family>.c lands, delete that family's whole section (markers included);
// when every section is gone, delete this file.
//
// A stubbed family supports nothing: graphs using its ops fail with GGML_STATUS_FAILED at
// planning time and supports_op says false.

#include "ggml-cpu-impl.h"


