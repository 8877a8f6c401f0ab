#include "CFuzzDriver.h"

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

int carousel_fuzz_run_driver(int argc, char **argv, carousel_fuzz_callback callback) {
    return LLVMFuzzerRunDriver(&argc, &argv, callback);
}
