// Google Benchmark JSON at and beyond the limits of its fields: each rejection
// names the file, the field and the real limit (and a nesting-depth limit, since a
// 200,000-level "context" once overflowed the stack in dump()).
#include <gtest/gtest.h>

#include "../common/error_message.h"
#include "bench_test_util.h"
#include "mdtune/bench/gbench_json.h"

namespace mdtune::bench {
namespace {

std::string error_of(const std::string& text) {
    return mdtest::message_of<bench::GbenchError>([&] { bench::parse_gbench_json(text, "limits.json"); });
}

// One valid benchmark entry with `field` replaced by `value` (or added).
std::string with_field(const std::string& field, const std::string& value) {
    std::string text = testing::gbench_json({{"BM_A", {1.0}}});
    const std::string key = "\"" + field + "\": ";
    const auto at = text.find(key);
    if (at == std::string::npos) {
        text.replace(text.find("{\"name\": \"BM_A\""), 1, "{" + key + value + ", ");
    } else {
        const auto end = text.find_first_of(",}", at + key.size());
        text.replace(at, end - at, key + value);
    }
    return text;
}

#define EXPECT_REJECTED(text, fragment) EXPECT_TRUE(mdtest::names_problem(error_of(text), fragment, "limits.json: "))

TEST(GbenchLimits, InfinityIsNotCalledNaN) {
    EXPECT_REJECTED(with_field("real_time", "Infinity"), "real_time: is +Infinity; it must be a finite");
    EXPECT_REJECTED(with_field("cpu_time", "-Infinity"), "cpu_time: is -Infinity; it must be a finite");
    EXPECT_REJECTED(with_field("real_time", "NaN"), "real_time: is NaN");
    EXPECT_REJECTED(with_field("name", "Infinity"), ".name: expected a string, got +Infinity");
}

// A time of 0 is no measurement: a 0 ns baseline against 103 ns compared as "+0.00 % no change".
TEST(GbenchLimits, ZeroTimeIsRefused) {
    for (const std::string zero : {"0", "0.0", "-0", "0e5"})
        EXPECT_REJECTED(with_field("real_time", zero),
                        "benchmarks[0] (\"BM_A\").real_time: is 0; a run's time must be positive");
    EXPECT_EQ(error_of(with_field("real_time", "1e-300")), "");
}

TEST(GbenchLimits, IntegersBeyondTheirTypeNameTheLimit) {
    EXPECT_REJECTED(with_field("iterations", "18446744073709551615"),
                    "iterations: 18446744073709551615 is above the limit 9223372036854775807");
    EXPECT_REJECTED(with_field("repetition_index", "2147483648"),
                    "repetition_index: 2147483648 is above the limit 2147483646");
    EXPECT_REJECTED(with_field("repetitions", "4294967296"), "repetitions: 4294967296 is above the limit 2147483647");
    EXPECT_REJECTED(with_field("threads", "-5"), "threads: -5 is below 1");
    const bench::GbenchReport ok = bench::parse_gbench_json(with_field("repetition_index", "2147483646"), "ok.json");
    EXPECT_EQ(ok.runs.front().repetition_index, 2147483646);
}

TEST(GbenchLimits, NumberOverflowNamesTheFileAndToken) {
    EXPECT_REJECTED(with_field("real_time", "1e999"), "number '1e999' at line ");
    EXPECT_REJECTED(with_field("real_time", "1e999"), "must fit a double");
}

TEST(GbenchLimits, NulInANameIsRefused) {
    EXPECT_REJECTED(with_field("name", "\"BM_\\u0000hidden\""), ".name: contains a NUL character");
    EXPECT_REJECTED(with_field("label", "\"a\\u0000b\""), ".label: contains a NUL character (\\u0000) at position 1");
}

TEST(GbenchLimits, DeepNestingIsRefusedBeforeParsing) {
    const std::size_t levels = 200000;
    std::string deep = "{\"context\": " + std::string(levels, '[') + std::string(levels, ']') + ", \"benchmarks\": []}";
    EXPECT_REJECTED(deep, "JSON nested deeper than 64 levels at byte offset 75 (line 1, column 76)");
    // 64 levels are fine (the context is kept as JSON text).
    std::string ok = testing::gbench_json({{"BM_A", {1.0}}});
    ok.replace(ok.find("\"host_name\""), 0, "\"deep\": " + std::string(62, '[') + std::string(62, ']') + ", ");
    EXPECT_EQ(error_of(ok), "");
}

}  // namespace
}  // namespace mdtune::bench
