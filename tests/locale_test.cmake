# Numbers do not depend on the process locale, and machine output not on the
# language: every subcommand, in every format, prints the same bytes with
# --lang en under LC_ALL=C, de_DE.UTF-8 (decimal comma, '.' thousands) and
# zh_CN.UTF-8; without --lang, CSV, TSV and JSON are the same bytes under all
# three, while output for people under zh_CN.UTF-8 is Chinese (issue 17).
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
  # Usage errors and bad input: in the reader's language, English when the output is for a machine.
  "compare --bogus"
  "compare --format csv --bogus"
  "comapre"
  "compare examples/qingdao-8xa100.yaml --set horizon=24parsecs"
  "compare examples/qingdao-8xa100.yaml --set horizon=24parsecs --format json"
  "estimate examples/finetune-7b-a100.yaml --set cluster.gpu=Z9"
  "prices"
  "prices --format csv"
  "prices --gpu A100 --format json --currency USD"
  "gpus --format md"
  "compare examples/qingdao-8xa100.yaml --chart --monthly"
  "compare examples/qingdao-8xa100.yaml --format csv"
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
# Runs one command under a locale; sets h to "rc:sha(stdout):sha(stderr)" in the caller.
function(run_under loc tag)
  set(ENV{LC_ALL} ${loc})
  set(ENV{LANG} ${loc})
  execute_process(COMMAND ${GPUPLAN} ${ARGN} WORKING_DIRECTORY ${SRC}
    OUTPUT_FILE ${WORK}/locale_${n}_${tag}.out ERROR_FILE ${WORK}/locale_${n}_${tag}.err RESULT_VARIABLE rc)
  file(SHA256 ${WORK}/locale_${n}_${tag}.out h_out)
  file(SHA256 ${WORK}/locale_${n}_${tag}.err h_err)
  set(h "${rc}:${h_out}:${h_err}" PARENT_SCOPE)
endfunction()
foreach(cmd IN LISTS commands)
  math(EXPR n "${n} + 1")
  separate_arguments(args UNIX_COMMAND "${cmd}")
  set(machine FALSE)
  if(cmd MATCHES "--format (csv|tsv|json)")
    set(machine TRUE)
  endif()
  set(reference "")
  foreach(loc C de_DE.UTF-8 zh_CN.UTF-8)
    run_under(${loc} ${loc}_en ${args} --lang en)
    if(loc STREQUAL "C")
      set(reference "${h}")
    elseif(NOT h STREQUAL reference)
      string(APPEND failed "gpuplan ${cmd} --lang en: LC_ALL=${loc} differs from LC_ALL=C (see ${WORK}/locale_${n}_*)\n")
    endif()
    run_under(${loc} ${loc} ${args})
    if(machine AND NOT h STREQUAL reference)
      string(APPEND failed "gpuplan ${cmd}: LC_ALL=${loc} differs from --lang en (see ${WORK}/locale_${n}_*)\n")
    elseif(NOT machine AND loc STREQUAL "zh_CN.UTF-8")
      file(READ ${WORK}/locale_${n}_${loc}.out text)
      set(stream out)
      if(text STREQUAL "")  # a refused input: its message is for people too
        file(READ ${WORK}/locale_${n}_${loc}.err text)
        set(stream err)
      endif()
      if(NOT text MATCHES "[一-龥]")
        string(APPEND failed "gpuplan ${cmd}: LC_ALL=${loc} prints no Chinese (see ${WORK}/locale_${n}_${loc}.${stream})\n")
      endif()
    elseif(NOT machine AND NOT h STREQUAL reference)
      string(APPEND failed "gpuplan ${cmd}: LC_ALL=${loc} differs from --lang en (see ${WORK}/locale_${n}_*)\n")
    endif()
  endforeach()
endforeach()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
message(STATUS "locale: ${n} commands print the same numbers under C, de_DE.UTF-8 and zh_CN.UTF-8; machine output the same bytes")
