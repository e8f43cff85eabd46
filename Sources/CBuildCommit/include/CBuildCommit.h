// The commit this binary was built from, baked in at build time. No policy lives here.
#ifndef ATTACHKIT_CBUILDCOMMIT_H
#define ATTACHKIT_CBUILDCOMMIT_H

/// The commit given as `-Xcc -DATTACHKIT_COMMIT='"…"'` when this binary was built (scripts/package.sh
/// passes `git describe`'s commit, with `-dirty` for uncommitted changes); "unknown" for a plain
/// `swift build`. Static storage.
const char *ak_build_commit(void);

#endif
