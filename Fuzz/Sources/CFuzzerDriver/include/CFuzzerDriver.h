#ifndef CFUZZERDRIVER_H
#define CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt, LLVM 12+), linked in by -sanitize=fuzzer. SwiftPM gives every executable its
/// own entry point (`<Target>_main`, aliased to `main` at link time), so libFuzzer's own main() is never used:
/// each target's @main calls this instead.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
