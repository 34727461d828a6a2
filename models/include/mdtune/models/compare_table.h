#pragma once
// `mdtune compare` as a library call: the procurement table. Per (system, machine)
// the best measured ns/day, else the latest model's prediction with its interval,
// and the price and power figures the user gave per machine.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mdtune/models/features.h"
#include "mdtune/models/model.h"
#include "mdtune/db/model_store.h"

namespace mdtune::models {

struct CompareRequest {
    std::string db;                                     // must exist; opened read-only
    std::vector<std::string> hardware;                  // as named by the user (id, prefix, node type, "this")
    std::vector<SystemDescriptor> systems;              // empty: every system measured on them (users' boxes:
                                                        // measured cells only), else water sizes
    std::vector<std::pair<std::string, double>> price;  // (hardware name or id, price)
    std::vector<std::pair<std::string, double>> watts;  // (hardware name or id, watts)
    std::optional<ModelKind> kind;                      // model for unmeasured points; nullopt: latest of any kind
};

struct CompareCell {
    std::string hardware;     // as given in the request
    std::string hardware_id;
    std::string node_type;    // from the fingerprint, "" when not recorded
    SystemDescriptor system;
    bool measured = false;
    double ns_per_day = 0, lo = 0, hi = 0;  // 0: neither measured nor predicted
    std::string config;
    std::optional<double> per_kilo_price;   // ns/day per 1,000 units of price
    std::optional<double> per_kilowatt;     // ns/day per kW

    std::string label() const;  // the node type when named by id, with the id's start
};

struct CompareResult {
    std::vector<std::pair<std::string, HardwareFeatures>> machines;  // (name given, features)
    std::vector<SystemDescriptor> systems;                           // sorted by kind, then size
    std::vector<CompareCell> cells;                                  // systems x machines
    std::optional<db::StoredModel> model;  // the model that predicted unmeasured points
    bool model_missing = false;        // unmeasured points but no model in the database
};

// Throws InputError for an unknown machine or a price/watts name that is not one of them.
CompareResult compare_hardware(const CompareRequest& request);

// ns/day against system size per machine (filled: measured, hollow: predicted).
std::string compare_plot_svg(const CompareResult& result);

}  // namespace mdtune::models
