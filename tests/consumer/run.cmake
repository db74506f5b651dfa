# cmake --install the build into WORK/prefix, configure and build
# tests/consumer against it (find_package(gpuplan)), run the result.
#   cmake -DBUILD=… -DSRC=… -DWORK=… [-DFLAGS=… -DCXX=…] -P run.cmake
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE ${WORK})
foreach(step
    "${CMAKE_COMMAND};--install;${BUILD};--prefix;${WORK}/prefix"
    # The build's compiler and flags: a sanitizer build's library needs them to link.
    "${CMAKE_COMMAND};-S;${SRC}/tests/consumer;-B;${WORK}/build;-DCMAKE_PREFIX_PATH=${WORK}/prefix;-DCMAKE_BUILD_TYPE=Release;-DCMAKE_CXX_COMPILER=${CXX};-DCMAKE_CXX_FLAGS=${FLAGS}"
    "${CMAKE_COMMAND};--build;${WORK}/build"
    "${WORK}/build/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${step} failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
if(NOT out MATCHES "offers; 7B on 8x A100-80G: [0-9.]+ h")
  message(FATAL_ERROR "consumer printed: ${out}")
endif()
message(STATUS "consumer: ${out}")
