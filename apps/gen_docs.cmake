# Generates the man page and the bash and zsh completions from the real
# --help of the built executable, so that they never drift from it:
#   cmake -DGPUPLAN=path/to/gpuplan -DOUT=dir -DVERSION=x.y.z -P gen_docs.cmake
# writes OUT/gpuplan.1, OUT/gpuplan.bash and OUT/_gpuplan.
cmake_minimum_required(VERSION 3.25)
set(ENV{NO_COLOR} 1)
set(ENV{LC_ALL} C)

function(help out)  # help(<var> [subcommand words...])
  execute_process(COMMAND ${GPUPLAN} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gpuplan ${ARGN} --help failed: ${rc}")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The names listed under "Subcommands:" in a help text.
function(subcommands out text)
  set(names "")
  string(FIND "${text}" "Subcommands:\n" at)
  if(NOT at EQUAL -1)
    string(SUBSTRING "${text}" ${at} -1 rest)
    string(REPLACE "\n" ";" lines "${rest}")
    foreach(line IN LISTS lines)
      if(line MATCHES "^  ([a-z]+) ")
        list(APPEND names ${CMAKE_MATCH_1})
      elseif(line STREQUAL "" AND names)
        break()
      endif()
    endforeach()
  endif()
  set(${out} "${names}" PARENT_SCOPE)
endfunction()

# Long options of a help text, and the choices of those that list them ({a,b}).
function(options out_opts out_choices text)
  set(opts "")
  set(choices "")
  string(REPLACE "\n" ";" lines "${text}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^  (-[a-z],)?(--[a-z-]+)")
      set(opt ${CMAKE_MATCH_2})
      list(APPEND opts ${opt})
      if(line MATCHES ":{([a-z,]+)}")
        string(REPLACE "," " " c "${CMAKE_MATCH_1}")
        list(APPEND choices "${opt}=${c}")
      endif()
    endif()
  endforeach()
  set(${out_opts} "${opts}" PARENT_SCOPE)
  set(${out_choices} "${choices}" PARENT_SCOPE)
endfunction()

# roff: backslashes escaped, lines that begin with . or ' protected.
function(roff out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

help(top)
subcommands(subs "${top}")
options(global_opts global_choices "${top}")
set(all_choices ${global_choices})
set(paths "")       # "prices", "fit scaling", ...
set(bash_groups "")  # a group's subcommands ("fit) … scaling progress mfu"), from its --help
set(zsh_groups "")
set(descriptions "")
foreach(s IN LISTS subs)
  help(h ${s})
  subcommands(nested "${h}")
  if(nested)
    list(JOIN nested " " nested_words)
    string(APPEND bash_groups "    ${s}) COMPREPLY=($(compgen -W \"${nested_words}\" -- \"$cur\")); return ;;\n")
    string(APPEND zsh_groups "    (${s}) compadd ${nested_words}; return ;;\n")
    foreach(n IN LISTS nested)
      list(APPEND paths "${s} ${n}")
    endforeach()
  else()
    list(APPEND paths "${s}")
  endif()
  string(REGEX MATCH "\n  ${s} +([^\n]*)" m "${top}")
  string(REPLACE "'" "" d "${CMAKE_MATCH_1}")
  string(REPLACE ":" " -" d "${d}")
  list(APPEND descriptions "${s}:${d}")
endforeach()

# ---- man page
roff(top_roff "${top}")
set(man ".TH GPUPLAN 1 \"\" \"gpuplan ${VERSION}\" \"User Commands\"\n.SH NAME\ngpuplan \\- GPU compute cost and capacity planner\n")
string(APPEND man ".SH SYNOPSIS\n.B gpuplan\n[\\fIOPTIONS\\fR] \\fISUBCOMMAND\\fR [\\fIARGS\\fR]\n")
string(APPEND man ".SH DESCRIPTION\nBuy or rent GPUs, which tier, how many cards, which billing mode, how long a training run takes and what it costs, from a dated, sourced price catalog. This page is the program's own \\fB--help\\fR output, for the program and each subcommand.\n")
string(APPEND man ".SH OPTIONS\n.nf\n${top_roff}.fi\n.SH SUBCOMMANDS\n")
foreach(p IN LISTS paths)
  separate_arguments(words UNIX_COMMAND "${p}")
  help(h ${words})
  roff(h_roff "${h}")
  string(APPEND man ".SS gpuplan ${p}\n.nf\n${h_roff}.fi\n")
endforeach()
string(APPEND man ".SH ENVIRONMENT\n.TP\n.B NO_COLOR\nno colour, whatever --color says\n.TP\n.B GPUPLAN_TODAY\nthe date for the stale check (YYYY-MM-DD), unless --today is given\n")
string(APPEND man ".SH SEE ALSO\nThe manual (doc/manual.md), the README and examples/ of the source (installed under share/doc/gpuplan); the JSON Schemas of the output under share/gpuplan/schemas.\n")
file(WRITE ${OUT}/gpuplan.1 "${man}")

# ---- completions: each subcommand path's options
set(bash_cases "")
set(zsh_cases "")
foreach(p IN LISTS paths)
  separate_arguments(words UNIX_COMMAND "${p}")
  help(h ${words})
  options(opts choices "${h}")
  list(APPEND all_choices ${choices})
  list(JOIN opts " " o)
  string(APPEND bash_cases "    \"${p}\") opts=\"${o}\" ;;\n")
  string(APPEND zsh_cases "    (\"${p}\") opts=(${o}) ;;\n")
endforeach()
list(REMOVE_DUPLICATES all_choices)
set(bash_values "")
set(zsh_values "")
foreach(c IN LISTS all_choices)
  string(REGEX MATCH "^([^=]+)=(.*)$" m "${c}")
  string(APPEND bash_values "    ${CMAKE_MATCH_1}) COMPREPLY=($(compgen -W \"${CMAKE_MATCH_2}\" -- \"$cur\")); return ;;\n")
  string(APPEND zsh_values "    (${CMAKE_MATCH_1}) compadd -- ${CMAKE_MATCH_2}; return ;;\n")
endforeach()
list(JOIN subs "|" sub_alt)
list(JOIN subs " " sub_words)
list(JOIN global_opts " " g)
set(file_opts "--catalog|-o|--output|--scaling")

file(WRITE ${OUT}/gpuplan.bash "# bash completion for gpuplan ${VERSION}, generated from its --help (apps/gen_docs.cmake)
_gpuplan() {
  local cur=\"\${COMP_WORDS[COMP_CWORD]}\" prev=\"\${COMP_WORDS[COMP_CWORD-1]}\"
  case \"$prev\" in
${bash_values}    ${file_opts}) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;
  esac
  # The subcommand typed so far (\"fit scaling\"), skipping global options and their values.
  local path=\"\" i w
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\"\${COMP_WORDS[i]}\"
    case \"$w\" in
      ${sub_alt}) [ -z \"$path\" ] && path=\"$w\" ;;
      -*) ;;
      *) case \"$path\" in fit|catalog) path=\"$path $w\" ;; esac ;;
    esac
  done
  local opts=\"\"
  case \"$path\" in
    \"\") COMPREPLY=($(compgen -W \"${sub_words} ${g}\" -- \"$cur\")); return ;;
${bash_groups}${bash_cases}  esac
  if [[ \"$cur\" == -* ]]; then
    COMPREPLY=($(compgen -W \"$opts ${g}\" -- \"$cur\"))
  else
    COMPREPLY=($(compgen -f -- \"$cur\"))
  fi
}
complete -F _gpuplan gpuplan
")

list(JOIN descriptions "' '" zsh_desc)
file(WRITE ${OUT}/_gpuplan "#compdef gpuplan
# zsh completion for gpuplan ${VERSION}, generated from its --help (apps/gen_docs.cmake)
_gpuplan() {
  local -a subs opts
  subs=('${zsh_desc}')
  case \${words[CURRENT-1]} in
${zsh_values}    (--catalog|-o|--output|--scaling) _files; return ;;
  esac
  local path='' w
  for w in \${words[2,CURRENT-1]}; do
    case \$w in
      (${sub_alt}) [[ -z \$path ]] && path=\$w ;;
      (-*) ;;
      (*) [[ \$path == (fit|catalog) ]] && path=\"\$path \$w\" ;;
    esac
  done
  case \$path in
    ('') if [[ \$PREFIX == -* ]]; then compadd -- ${g}; else _describe 'subcommand' subs; fi; return ;;
${zsh_groups}${zsh_cases}  esac
  if [[ \$PREFIX == -* ]]; then compadd -- \$opts ${g}; else _files; fi
}
_gpuplan \"\$@\"
")
message(STATUS "gen_docs: gpuplan.1, gpuplan.bash and _gpuplan for ${VERSION} (${CMAKE_CURRENT_LIST_DIR})")
