// Fixture: db reaching up into the tuner; check_include_layers must refuse it.
#include "mdtune/db/store.h"
#include "mdtune/tuner/sweep.h"
