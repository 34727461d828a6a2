# Fails when a source file includes a header of a layer above its own
# (docs/developer/architecture.md: engine <- core <- db <- models <- tuner <- cli).
#   cmake -DSOURCE_DIR=<repository or fixture tree> -P check_include_layers.cmake
# A file's layer is its top folder; an include's layer is its path prefix
# (mdcore/, mdtune/<module>/). Headers of the old flat mdtune/ folder are refused
# too: every mdtune header lives under its module's path.
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_include_layers: pass -DSOURCE_DIR=<tree>")
endif()
get_filename_component(SOURCE_DIR "${SOURCE_DIR}" ABSOLUTE)

set(layers engine core db models tuner cli)
# Include path prefix -> layer.
set(prefix_mdcore/ engine)
set(prefix_mdtune/core/ core)
set(prefix_mdtune/process/ core)
set(prefix_mdtune/db/ db)
set(prefix_mdtune/models/ models)
set(prefix_mdtune/tuner/ tuner)
set(prefix_mdtune/slurm/ tuner)
set(prefix_mdtune/bench/ tuner)
set(prefix_mdtune/mpi/ tuner)
set(prefixes mdcore/ mdtune/core/ mdtune/process/ mdtune/db/ mdtune/models/ mdtune/tuner/
             mdtune/slurm/ mdtune/bench/ mdtune/mpi/)

set(problems "")
set(checked 0)
foreach(layer IN LISTS layers)
  list(FIND layers ${layer} rank)
  file(GLOB_RECURSE files LIST_DIRECTORIES false
       "${SOURCE_DIR}/${layer}/*.h" "${SOURCE_DIR}/${layer}/*.cpp"
       "${SOURCE_DIR}/${layer}/*.cu" "${SOURCE_DIR}/${layer}/*.cuh")
  foreach(f IN LISTS files)
    math(EXPR checked "${checked} + 1")
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    file(RELATIVE_PATH rel "${SOURCE_DIR}" "${f}")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
      set(target "")
      foreach(p IN LISTS prefixes)
        string(FIND "${inc}" "${p}" at)
        if(at EQUAL 0)
          set(target ${prefix_${p}})
          break()
        endif()
      endforeach()
      if(NOT target)
        if(inc MATCHES "^mdtune/[^/]+$")
          string(APPEND problems "  ${rel}: #include \"${inc}\" is in no module's folder (mdtune/<module>/...)\n")
        endif()
        continue()  # the file's own private headers
      endif()
      list(FIND layers ${target} target_rank)
      if(target_rank GREATER rank)
        string(APPEND problems "  ${rel} (${layer}): #include \"${inc}\" reaches up into ${target}\n")
      endif()
    endforeach()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "check_include_layers: no sources under ${SOURCE_DIR}")
endif()
if(problems)
  message(FATAL_ERROR "includes against the layer order (engine <- core <- db <- models <- tuner <- cli):\n${problems}")
endif()
message(STATUS "check_include_layers: ${checked} files, every include points down or sideways")
