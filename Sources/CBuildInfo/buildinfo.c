// Build facts for `strivacity --version --verbose`. The Makefile writes buildinfo.generated.h
// (git-ignored) before every build, and only when its contents change, so a new commit
// recompiles this file alone.
#include "cbuildinfo.h"
#if __has_include("buildinfo.generated.h")
#include "buildinfo.generated.h"
#endif
#ifndef STRIVACITY_COMMIT
#define STRIVACITY_COMMIT "unknown"
#endif
#ifndef STRIVACITY_SWIFT
#define STRIVACITY_SWIFT "unknown"
#endif

const char *strivacity_build_commit(void) { return STRIVACITY_COMMIT; }
const char *strivacity_build_swift(void) { return STRIVACITY_SWIFT; }
