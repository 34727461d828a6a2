#include "report_columns.h"

namespace mdtune::db {

ReportColumns report_columns(const std::optional<mdcore::RunReport>& report) {
    if (!report) return {};
    return {mdcore::pairlist_to_json(report->pairlist, report->config), mdcore::effective_config_to_json(report->config),
            mdcore::run_report_to_json(*report, -1)};
}

std::optional<mdcore::RunReport> read_report_column(const std::string& report_json) {
    if (report_json.empty() || report_json == "{}") return std::nullopt;
    return mdcore::run_report_from_json(report_json);
}

}  // namespace mdtune::db
