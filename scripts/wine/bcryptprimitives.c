/* ProcessPrng for Wine 8.0, whose bcryptprimitives.dll lacks it: Rust's standard library (1.78
 * and later) calls it for random bytes (HashMap seeds, tempfile names), and a binary without it
 * does not start. Built by scripts/windows-lane with mingw into the lane's Wine system32, never
 * shipped: real Windows (10 and later) has the function. */
#include <windows.h>

/* RtlGenRandom, exported by advapi32 under this name. */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
