#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "gpuplan/xlsx.h"

using namespace gpuplan;

TEST_CASE("xlsx: cell references, CRC-32 and the stored ZIP layout", "[xlsx]") {
  CHECK(xlsx::cell_ref(0, 0) == "A1");
  CHECK(xlsx::cell_ref(2, 1, true) == "$B$3");
  CHECK(xlsx::column_letters(25) == "Z");
  CHECK(xlsx::column_letters(26) == "AA");
  CHECK(xlsx::column_letters(701) == "ZZ");
  CHECK(xlsx::column_letters(702) == "AAA");
  // The CRC-32 check value of "123456789" (ISO 3309 / ITU-T V.42).
  CHECK(xlsx::crc32("123456789") == 0xCBF43926u);
  const std::string z = xlsx::zip_stored({{"a.txt", "hello"}});
  // Local header, name, data; central directory; end record (22 bytes).
  CHECK(z.substr(0, 4) == std::string("PK\x03\x04", 4));
  CHECK(z.find("hello") == 30 + 5);
  CHECK(z.substr(z.size() - 22, 4) == std::string("PK\x05\x06", 4));
  // The same workbook is the same bytes (fixed timestamps).
  xlsx::Workbook a(kCny), b(kCny);
  a.add_sheet("S").number(0, 0, 1.5);
  b.add_sheet("S").number(0, 0, 1.5);
  CHECK(a.bytes() == b.bytes());
}

TEST_CASE("xlsx: formulas round as gpuplan does, half to even after the micro-unit", "[xlsx]") {
  // ROUND(x,2) is expanded; ROUND(x,6) (the micro-unit step) and ROUNDUP are left alone.
  const std::string f = xlsx::with_half_even_rounding("ROUND(A1*B1,2)+ROUNDUP(C1,0)");
  CHECK(f.find("ROUNDUP(C1,0)") != std::string::npos);
  CHECK(f.find("MOD(") != std::string::npos);
  CHECK(f.find("ROUND(A1*B1,6)") != std::string::npos);
  CHECK(xlsx::with_half_even_rounding("ROUND(X,6)") == "ROUND(X,6)");
  // Nested: the inner ROUND is expanded inside the outer one's argument.
  const std::string nested = xlsx::with_half_even_rounding("ROUND(ROUND(A1,2)*0.1,2)");
  CHECK(nested.find("ROUND(ROUND(") == std::string::npos);
}

TEST_CASE("xlsx: names a spreadsheet would refuse, and non-finite numbers, are programming errors", "[xlsx]") {
  xlsx::Workbook wb(kCny);
  xlsx::Sheet& s = wb.add_sheet("Assumptions");
  CHECK_NOTHROW(wb.define_name("card_price", s, 3, 1));
  CHECK_THROWS_AS(wb.define_name("AB12", s, 3, 1), std::logic_error);  // a cell reference
  CHECK_THROWS_AS(wb.define_name("1st", s, 3, 1), std::logic_error);
  CHECK_THROWS_AS(wb.define_name("R", s, 3, 1), std::logic_error);
  CHECK_THROWS_AS(s.number(0, 0, std::nan("")), std::logic_error);
  CHECK_THROWS_AS(s.formula(0, 0, "A1", std::numeric_limits<double>::infinity()), std::logic_error);
  CHECK_THROWS_AS(wb.add_sheet("a/b"), std::logic_error);
  // Text that looks like a formula is stored as text with a quote prefix.
  s.text(5, 0, "=HYPERLINK(\"x\")");
  CHECK(s.xml().find("s=\"12\" t=\"inlineStr\"") != std::string::npos);
}
