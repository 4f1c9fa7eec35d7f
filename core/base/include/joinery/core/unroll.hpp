#pragma once
// JOINERY_UNROLL: full unrolling of a short loop whose trip count is known at compile time
// (block kernels of fixed size). GCC's own heuristics leave the nested loops of an 8 x 8 block
// rolled, with as many loop-control instructions as arithmetic ones. Internal to joinery's
// sources; other compilers get no hint.
#if defined(__GNUC__) && !defined(__clang__)
#define JOINERY_UNROLL _Pragma("GCC unroll 8")
#else
#define JOINERY_UNROLL
#endif
