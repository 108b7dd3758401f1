# Script mode, run at every build (app/util/CMakeLists.txt, target vsa_git_sha): writes the
# source tree's git sha (with -dirty for uncommitted changes to tracked files) into
# OUTPUT from TEMPLATE. configure_file leaves OUTPUT untouched when the text is the same,
# so an unchanged tree rebuilds nothing. Taken at configure time instead, the sha went
# stale with every commit after it and reports named the wrong source.
#   cmake -DSOURCE_DIR=... -DTEMPLATE=... -DOUTPUT=... -P VsaGitSha.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE VSA_GIT_SHA OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT VSA_GIT_SHA)
  set(VSA_GIT_SHA "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no
    WORKING_DIRECTORY ${SOURCE_DIR}
    OUTPUT_VARIABLE VSA_GIT_DIRTY OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(VSA_GIT_DIRTY)
    set(VSA_GIT_SHA "${VSA_GIT_SHA}-dirty")
  endif()
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
