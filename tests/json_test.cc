#include <catch2/catch.hpp>

#include "gpuplan/json.h"

using namespace gpuplan;

TEST_CASE("json keeps key order and writes money as exact decimals", "[json]") {
  Json doc = Json::object();
  doc["schema_version"] = 1;
  doc["price_cny"] = Json::money(Money::parse("221.5", kCny), 2);
  doc["name"] = "Acme \"GPU\"\n";
  doc["ratio"] = 0.1 + 0.2;  // 15 significant digits: 0.3, not 0.30000000000000004
  doc["missing"] = Json();
  CHECK(doc.dump_compact() ==
        R"({"schema_version":1,"price_cny":221.50,"name":"Acme \"GPU\"\n","ratio":0.3,"missing":null})");
}

TEST_CASE("json refuses to print a non-finite number", "[json]") {
  Json doc = Json::object();
  doc["x"] = std::nan("");
  CHECK_THROWS_AS(doc.dump(), std::logic_error);
  doc["x"] = 1.0 / 0.0 * 0.0 + 1e308 * 10;
  CHECK_THROWS_AS(doc.dump(), std::logic_error);
}

TEST_CASE("json pretty output is indented with a final newline", "[json]") {
  Json doc = Json::object();
  doc["a"] = Json::array();
  doc["a"].push_back(1);
  doc["b"] = Json::object();
  CHECK(doc.dump() == "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}\n");
  CHECK(doc.find("a") != nullptr);
  CHECK(doc.find("zz") == nullptr);
  CHECK(json_quote("\x01") == "\"\\u0001\"");
}
