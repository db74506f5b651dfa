# The marked messages of gpuplan's sources as a .pot (GNU gettext):
#   cmake -DXGETTEXT=xgettext -DSRC=<source dir> -DPOT=out.pot -P extract_messages.cmake
# Keywords: tr, trf (translated) and tr_noop (marked; translated when rendered), see lib/gpuplan/i18n.h;
# their texts are fmt format strings, never C printf ones (no-c-format).
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE sources RELATIVE ${SRC} ${SRC}/lib/gpuplan/*.cc ${SRC}/lib/gpuplan/*.h ${SRC}/apps/gpuplan/*.cc)
list(SORT sources)
execute_process(
  COMMAND ${XGETTEXT} --language=C++ --from-code=UTF-8 --keyword=tr --keyword=trf --keyword=tr_noop
    --flag=tr:1:no-c-format --flag=trf:1:no-c-format --flag=tr_noop:1:no-c-format
    --no-wrap --add-location=file --sort-by-file --package-name=gpuplan --output=${POT} ${sources}
  WORKING_DIRECTORY ${SRC} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "xgettext failed")
endif()
