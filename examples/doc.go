// Package examples holds kgen's C++ host examples (cpp-vulkan, cpp-hip),
// which use only generated/kgen_select.h; its tests build them with g++ and
// clang++ under -Wall -Wextra -Wpedantic -Werror, run cpp-vulkan on
// lavapipe against Go's selection and the CPU, and build cpp-hip and a
// code object with the documented clang command.
package examples
