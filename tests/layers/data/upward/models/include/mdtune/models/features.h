// Fixture: a models header including core and db (allowed) only.
#include "mdcore/engine.h"
#include "mdtune/core/config.h"
#include "mdtune/db/store.h"
