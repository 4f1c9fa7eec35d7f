include_guard(GLOBAL)
# joinery_configure_target(<target>): warnings and sanitizers for our own code.
function(joinery_configure_target tgt)
  target_compile_options(${tgt} PRIVATE -Wall -Wextra -Wpedantic)
  if(JOINERY_WERROR)
    target_compile_options(${tgt} PRIVATE -Werror)
  endif()
endfunction()

if(JOINERY_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
