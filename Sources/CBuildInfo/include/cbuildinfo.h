#ifndef CBUILDINFO_H
#define CBUILDINFO_H
/// The commit and the Swift compiler a build came from, as `make` wrote them into
/// buildinfo.generated.h before building ("unknown" for a build without make or git).
const char *strivacity_build_commit(void);
const char *strivacity_build_swift(void);
#endif
