/* What a fresh anonymous page costs on this machine, faulted in at its first write or all at
   once by madvise(MADV_POPULATE_WRITE) (Linux 5.14 and later): the measurement behind
   `System.populate` (bench/README.md, "Pages faulted in at once").

       cc -O2 -o /tmp/populate bench/populate.c
       for r in 1 2 3 4 5 6 7 8; do /tmp/populate touch 100; /tmp/populate populate 100; done

   Each run maps MIB mebibytes, then writes a byte to every page, and prints the milliseconds
   from the mapping to the last write and the process's user and system time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc != 3 || (strcmp(argv[1], "touch") != 0 && strcmp(argv[1], "populate") != 0)) {
        fprintf(stderr, "usage: populate touch|populate MIB\n");
        return 2;
    }
    int populate = strcmp(argv[1], "populate") == 0;
    size_t bytes = (size_t)atoi(argv[2]) << 20;
    double start = now();
    char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    if (populate && madvise(p, bytes, MADV_POPULATE_WRITE) != 0) {
        perror("madvise(MADV_POPULATE_WRITE)");
        return 1;
    }
    for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
    double end = now();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%s %s MiB: %.1f ms (user %.1f ms, system %.1f ms, %ld minor faults)\n", argv[1], argv[2],
           (end - start) * 1e3, ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
           ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3, ru.ru_minflt);
    return 0;
}
