# Compiles a .po catalog into the binary as a string:
#   cmake -DPO=lib/po/zh_CN.po -DOUT=builtin_po.cc -P embed_po.cmake
cmake_minimum_required(VERSION 3.25)
file(READ ${PO} text)
string(FIND "${text}" ")gpuplan_po\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${PO} holds the raw-string delimiter")
endif()
file(WRITE ${OUT}.tmp "// Generated from ${PO} by lib/embed_po.cmake: do not edit.\n#include <string_view>\nnamespace gpuplan {\nextern const std::string_view kChinesePo;\nconst std::string_view kChinesePo = R\"gpuplan_po(${text})gpuplan_po\";\n}  // namespace gpuplan\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
