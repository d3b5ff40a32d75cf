//go:build tools

// The tools kgen's build uses.
//
// Go tools are pinned by go.mod's `tool` lines and run with `go tool NAME`:
//
//	tool github.com/kgen-dev/kgen/cmd/gen   (go tool gen --check)
//
// Binaries are pinned by the Makefile's deps target (Debian 12 packages):
//
//	glslangValidator  glslang-tools 12.0.0-2   GLSL -> SPIR-V ("Glslang Version: 11:12.0.0")
//	spirv-val         spirv-tools 2023.1-2     SPIR-V validation
//	clang++-19        clang-19 1:19.1.7        HIP syntax checks and AMD code objects
//	llvm-objdump-19   llvm-19 1:19.1.7         ISA checks (16-byte loads)
//	hipcc             optional; used when on PATH (a real ROCm install)
//
// generated/manifest.json records the versions that made the committed
// artifacts; `gen --check` exits 3 when the installed ones differ.
package tools
