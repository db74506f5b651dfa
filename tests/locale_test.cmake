# Output does not depend on the process locale: every subcommand, in every
# format, prints the same bytes under LC_ALL=C, de_DE.UTF-8 (decimal comma,
# '.' thousands) and zh_CN.UTF-8.
#   cmake -DGPUPLAN=… -DSRC=… -DWORK=… -P locale_test.cmake
# The locales come from `bash .ci/install-deps --test` (localedef); when one is
# missing the test fails rather than passing without checking anything.
cmake_minimum_required(VERSION 3.25)
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND locale -a OUTPUT_VARIABLE available)
string(TOLOWER "${available}" available)
foreach(loc de_de.utf8 zh_cn.utf8)
  string(FIND "${available}" "${loc}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "locale ${loc} is not installed (bash .ci/install-deps --test generates it)")
  endif()
endforeach()
set(ENV{NO_COLOR} 1)
unset(ENV{COLUMNS})  # tables at full width, whatever the terminal
set(ENV{GPUPLAN_TODAY} 2026-12-02)
set(commands
  "prices"
  "prices --format csv"
  "prices --gpu A100 --format json --currency USD"
  "gpus --format md"
  "compare examples/qingdao-8xa100.yaml --chart --monthly"
  "compare examples/startup-4090-spot.yaml --format json"
  "estimate examples/finetune-7b-a100.yaml --format csv"
  "estimate examples/vision-4090.yaml --format json"
  "fit scaling examples/scaling-a100.csv --predict 32"
  "fit progress examples/trial-progress.csv --total-steps 20000 --format json"
  "fit mfu --gpu A100-80G --gpus 8 --parameters 7B --tokens-per-second 23000"
  "plan examples/plan-deadline.yaml --explain"
  "plan examples/plan-deadline.yaml --format json"
  "sensitivity examples/qingdao-8xa100.yaml --format csv"
  "sensitivity examples/qingdao-8xa100.yaml"
  "catalog validate examples/team-quotes.yaml"
  "compare examples/qingdao-8xa100.yaml --set workload.utilisation=1,5")
set(failed "")
set(n 0)
foreach(cmd IN LISTS commands)
  math(EXPR n "${n} + 1")
  separate_arguments(args UNIX_COMMAND "${cmd}")
  set(reference "")
  foreach(loc C de_DE.UTF-8 zh_CN.UTF-8)
    set(ENV{LC_ALL} ${loc})
    set(ENV{LANG} ${loc})
    execute_process(COMMAND ${GPUPLAN} ${args} WORKING_DIRECTORY ${SRC}
      OUTPUT_FILE ${WORK}/locale_${n}_${loc}.out ERROR_FILE ${WORK}/locale_${n}_${loc}.err RESULT_VARIABLE rc)
    file(SHA256 ${WORK}/locale_${n}_${loc}.out h_out)
    file(SHA256 ${WORK}/locale_${n}_${loc}.err h_err)
    set(h "${rc}:${h_out}:${h_err}")
    if(loc STREQUAL "C")
      set(reference "${h}")
    elseif(NOT h STREQUAL reference)
      string(APPEND failed "gpuplan ${cmd}: LC_ALL=${loc} differs from LC_ALL=C (see ${WORK}/locale_${n}_*)\n")
    endif()
  endforeach()
endforeach()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
message(STATUS "locale: ${n} commands print the same bytes under C, de_DE.UTF-8 and zh_CN.UTF-8")
