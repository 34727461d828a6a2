// Fixture: a header of the old flat mdtune/ folder; check_include_layers must refuse it.
#include "mdtune/config.h"
