#pragma once
// The one place a trial's RunReport becomes database text and back: the
// engine's writer and reader, so the columns hold exactly what mdcore writes.
#include <optional>
#include <string>

#include "mdcore/run_report.h"

namespace mdtune::db {

// trials.pairlist_json, config_json and report_json of a report; "" each without one.
struct ReportColumns {
    std::string pairlist_json;  // the report's "pairlist" object
    std::string config_json;    // the report's "config" object (effective settings)
    std::string report_json;    // the whole report
};
ReportColumns report_columns(const std::optional<mdcore::RunReport>& report);

// trials.report_json back: nullopt for "" and for the "{}" rows of the first
// schema; throws mdcore::RunReportError for a report that does not read.
std::optional<mdcore::RunReport> read_report_column(const std::string& report_json);

}  // namespace mdtune::db
