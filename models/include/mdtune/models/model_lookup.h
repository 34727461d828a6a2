#pragma once
// What fit, predict, tune and compare look up in a trial database: the database
// itself, a machine named by the user, the latest stored model, a system given
// by kind and atom count. Bad names are InputError (the message names the flag).
#include <memory>
#include <optional>
#include <string>

#include "mdtune/models/features.h"
#include "mdtune/core/input_error.h"
#include "mdtune/models/model.h"
#include "mdtune/db/model_store.h"
#include "mdtune/db/store.h"

namespace mdtune::models {

// A database that must already exist: reading never creates an empty file.
// Throws db::DbRefusedError naming the file (bad input, exit 2, as every command
// that opens a missing database read-only).
void require_database(const std::string& path);

// The system of --system KIND --natoms N, checked: a known kind, water kinds in
// whole molecules. `natoms_text` is the count as the user typed it, for messages.
SystemDescriptor checked_system(const std::string& kind, long natoms, const std::string& natoms_text);

// The node type recorded in a hardware fingerprint ("" in databases from before it).
std::string node_type_of(const db::Store& store, const std::string& hardware_id);

// "this", a hardware id of the database, an unambiguous prefix of one, or a node type.
HardwareFeatures resolve_hardware(const db::Store& store, const std::string& spec);

struct LoadedModel {
    db::StoredModel row;
    std::unique_ptr<Model> model;
};

// The newest stored model (of `kind` when given), or nothing.
std::optional<LoadedModel> latest_model(const db::Store& store, std::optional<ModelKind> kind);

// One line on how a stored model cross-validated on the groupings that chose it
// ("CV holding out size: median regret 4.0 %, worst 9.5 %, MAPE 10.1 %").
std::string cv_headline(const db::StoredModel& row);

}  // namespace mdtune::models
