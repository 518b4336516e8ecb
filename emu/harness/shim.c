/* The bochscpu-python 0.4.0 wheel was linked against glibc 2.38, which renamed a few
 * functions (C23 "isoc23" variants). On an older glibc they are missing; these forwarders
 * provide them. Built once by model.py and loaded RTLD_GLOBAL before the wheel. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

unsigned long long __isoc23_strtoull(const char *s, char **end, int base) {
    return strtoull(s, end, base);
}

long long __isoc23_strtoll(const char *s, char **end, int base) {
    return strtoll(s, end, base);
}

unsigned long __isoc23_strtoul(const char *s, char **end, int base) {
    return strtoul(s, end, base);
}

long __isoc23_strtol(const char *s, char **end, int base) {
    return strtol(s, end, base);
}

int __isoc23_sscanf(const char *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsscanf(s, fmt, ap);
    va_end(ap);
    return n;
}
