/* Which external libraries this process runs with: the real file of a loaded shared library (dl_iterate_phdr, which
   Swift cannot pass a callback with context to), and the versions x265 and zimg report of themselves (looked up with
   dlsym, so that nothing links against them beyond what FFmpeg already loads). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "include/CFFmpegLog.h"

struct cff_library_search {
    const char *prefix;
    char *out;
    int size;
    int found;
};

static const char *cff_base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static int cff_library_visit(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct cff_library_search *search = data;
    const char *name = info->dlpi_name;
    if (!name || !*name || strncmp(cff_base_name(name), search->prefix, strlen(search->prefix)) != 0) return 0;
    char real[PATH_MAX];
    const char *file = realpath(name, real) ? real : name;
    snprintf(search->out, (size_t)search->size, "%s", cff_base_name(file));
    search->found = 1;
    return 1;
}

int cff_loaded_library(const char *prefix, char *out, int size) {
    if (size <= 0) return 0;
    out[0] = 0;
    struct cff_library_search search = { prefix, out, size, 0 };
    dl_iterate_phdr(cff_library_visit, &search);
    return search.found;
}

int cff_x265_version(char *out, int size) {
    if (size <= 0) return 0;
    out[0] = 0;
    const char *const *version = dlsym(RTLD_DEFAULT, "x265_version_str");
    if (!version || !*version) return 0;
    snprintf(out, (size_t)size, "%s", *version);
    return 1;
}

int cff_zimg_version(char *out, int size) {
    if (size <= 0) return 0;
    out[0] = 0;
    void (*info)(unsigned *, unsigned *, unsigned *) = (void (*)(unsigned *, unsigned *, unsigned *))dlsym(RTLD_DEFAULT, "zimg_get_version_info");
    if (!info) return 0;
    unsigned major = 0, minor = 0, micro = 0;
    info(&major, &minor, &micro);
    snprintf(out, (size_t)size, "%u.%u.%u", major, minor, micro);
    return 1;
}
