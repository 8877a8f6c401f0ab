#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point, as an executable's `main` would call it (compiler-rt's
/// FuzzerInterface.h: `LLVMFuzzerRunDriver`, LLVM 13 and later).
typedef int (*carousel_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer on `callback` with the process's command line (corpus directories and
/// `-flag=value` options), and returns its exit status.
int carousel_fuzz_run_driver(int argc, char **argv, carousel_fuzz_callback callback);

#endif
