// Package templates holds kgen's inputs: the kernel spec (kernels.yaml), one
// spec file per arch or device class (archs/), a folder of templates per
// kernel family, and the portability header the HIP sources include.
package templates

import "embed"

// FS is the templates tree as compiled into kgen; `gen --templates DIR`
// reads a directory instead.
//
//go:embed kernels.yaml archs/*.yaml include/*.h */*.tmpl
var FS embed.FS
