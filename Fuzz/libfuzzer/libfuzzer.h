// libFuzzer's entry point for a program with its own main (LLVM's "using libFuzzer as a
// library"): it reads libFuzzer's flags from argc/argv and fuzzes `test`.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));
