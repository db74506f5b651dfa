# Keeps the documentation true: every ```console block that starts with
# "$ gpuplan ARGS" in each file of DOCS is run (from the source tree, with
# GPUPLAN_TODAY pinned, NO_COLOR, LC_ALL=C) and its stdout followed by its
# stderr must equal the rest of the block, byte for byte.
#   cmake -DGPUPLAN=… -DSRC=… -DWORK=… [-DDOCS=README.md;doc/manual.md] -P doc_tour.cmake
# DOCS lists the files, relative to SRC. Each listed file must hold at least one
# such block, and a README.md or doc/*.md that holds one must be listed, so that
# no page is checked for nothing and none goes unchecked.
# README_UPDATE=1 writes the program's output into the blocks of every listed
# file instead (review the diff before committing), as GOLDEN_UPDATE=1 does for
# the golden tests.
# CMake's file(READ) drops CR bytes: keep CSV (CRLF) output out of these blocks.
cmake_minimum_required(VERSION 3.25)
if(NOT DEFINED DOCS)
  set(DOCS README.md doc/manual.md)
endif()
file(MAKE_DIRECTORY ${WORK})
set(ENV{NO_COLOR} 1)
unset(ENV{COLUMNS})  # tables at full width, whatever the terminal
set(ENV{LC_ALL} C)
set(ENV{GPUPLAN_TODAY} 2026-12-02)
set(fence_open "```console\n$ gpuplan")
string(LENGTH "```console\n$ " skip)
set(problems "")    # a page missing, unlisted or without blocks: fatal in every mode
set(mismatches "")  # a block that differs from the program: fatal unless README_UPDATE
set(summary "")

# Every page that has a tour block must be in DOCS.
file(GLOB pages RELATIVE ${SRC} ${SRC}/README.md ${SRC}/doc/*.md)
foreach(page IN LISTS pages)
  if(NOT page IN_LIST DOCS)
    file(READ ${SRC}/${page} text)
    string(FIND "${text}" "${fence_open}" at)
    if(NOT at EQUAL -1)
      string(APPEND problems "${page} has ```console $ gpuplan blocks but is not in the tour's list (add it to DOCS at the top of tests/doc_tour.cmake)\n")
    endif()
  endif()
endforeach()

foreach(doc IN LISTS DOCS)
  if(NOT EXISTS ${SRC}/${doc})
    string(APPEND problems "${doc}: no such file (listed in DOCS)\n")
    continue()
  endif()
  file(READ ${SRC}/${doc} text)
  string(MAKE_C_IDENTIFIER "${doc}" slug)
  set(count 0)
  set(updated "")  # README_UPDATE: the text up to where the scan has got
  while(TRUE)
    string(FIND "${text}" "${fence_open}" start)
    if(start EQUAL -1)
      break()
    endif()
    math(EXPR start "${start} + ${skip}")
    string(SUBSTRING "${text}" 0 ${start} before)
    string(APPEND updated "${before}")
    string(SUBSTRING "${text}" ${start} -1 text)
    string(FIND "${text}" "\n" eol)
    string(SUBSTRING "${text}" 0 ${eol} cmdline)
    string(APPEND updated "${cmdline}\n")
    math(EXPR eol "${eol} + 1")
    string(SUBSTRING "${text}" ${eol} -1 text)
    string(FIND "${text}" "```\n" close)
    math(EXPR count "${count} + 1")
    if(close EQUAL -1)
      string(APPEND problems "${doc} block ${count} ($ ${cmdline}) has no closing ```\n")
      set(text "")
      break()
    endif()
    string(SUBSTRING "${text}" 0 ${close} expected)
    string(SUBSTRING "${text}" ${close} -1 text)
    set(base ${WORK}/${slug}_${count})
    string(REGEX REPLACE "^gpuplan " "" argline "${cmdline}")
    separate_arguments(args UNIX_COMMAND "${argline}")
    execute_process(COMMAND ${GPUPLAN} ${args} WORKING_DIRECTORY ${SRC}
      OUTPUT_FILE ${base}.out ERROR_FILE ${base}.err TIMEOUT 60)
    file(READ ${base}.out got)
    file(READ ${base}.err got_err)
    string(APPEND got "${got_err}")
    string(APPEND updated "${got}")
    if(NOT got STREQUAL expected)
      file(WRITE ${base}.expected "${expected}")
      file(WRITE ${base}.got "${got}")
      execute_process(COMMAND diff -u ${base}.expected ${base}.got OUTPUT_VARIABLE d)
      string(APPEND mismatches "${doc} block ${count} ($ ${cmdline}) differs from the program:\n${d}\n")
    endif()
  endwhile()
  if(count EQUAL 0)
    string(APPEND problems "${doc} has no ```console blocks with $ gpuplan: nothing was checked (take it out of DOCS in tests/doc_tour.cmake)\n")
  elseif(DEFINED ENV{README_UPDATE} AND NOT problems)
    string(APPEND updated "${text}")
    file(WRITE ${SRC}/${doc} "${updated}")
    string(APPEND summary "${doc}: ${count} blocks written from the program\n")
  else()
    string(APPEND summary "${doc}: ${count} blocks\n")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "${problems}")
endif()
if(DEFINED ENV{README_UPDATE})
  message(STATUS "doc tour:\n${summary}")
  return()
endif()
if(mismatches)
  message(FATAL_ERROR "${mismatches}Update the page with the real output (README_UPDATE=1 writes it; review the diff).")
endif()
message(STATUS "doc tour: every block matches the program\n${summary}")
