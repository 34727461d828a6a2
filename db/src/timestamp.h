#pragma once
// Kept for the db sources' includes; the declaration is public (Slurm manifests use it too).
#include "mdtune/db/timestamp.h"
