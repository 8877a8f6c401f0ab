/*
 * A QEMU TCG plugin that counts the guest instructions a program executes, for
 * bench/insn-count (docs/PERFORMANCE.md "Instruction counts on arm64"): the same count
 * for an arm64 binary under qemu-aarch64 as for an amd64 one under qemu-x86_64, where
 * valgrind (amd64 only) and perf (no PMU for emulated code) cannot count.
 *
 * Debian ships qemu-user with plugin support but neither QEMU's example plugins nor the
 * plugin header, so the few declarations this plugin uses (QEMU's plugin API, version 1,
 * as in QEMU 7.2) are written out here.
 *
 * At exit it writes "insns N" to stderr (qemu_plugin_outs): N is the number of guest
 * instructions executed by all threads. Each translated block adds its instruction count
 * to one counter when it runs (an inline add, no callback), so the count costs little
 * time; threads add without synchronisation, so a multi-threaded program's count may be
 * slightly low.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                           void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
                                              void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *),
                                    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
void qemu_plugin_outs(const char *string);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t executed;

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &executed,
                                             qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
    char line[64];
    (void)id; (void)userdata;
    snprintf(line, sizeof line, "insns %" PRIu64 "\n", executed);
    qemu_plugin_outs(line);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    (void)info; (void)argc; (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
