// The commit is a C string literal defined on the compiler's command line, because SwiftPM has no
// other way to hand a value to a build (Swift's -D defines a condition, not a value): a plain
// `swift build` from a clean clone defines nothing and gets "unknown", so no generated file is
// needed and nothing breaks when git is absent (a tarball, a container build without .git).
#include "CBuildCommit.h"

#ifndef ATTACHKIT_COMMIT
#define ATTACHKIT_COMMIT "unknown"
#endif

const char *ak_build_commit(void) { return ATTACHKIT_COMMIT; }
