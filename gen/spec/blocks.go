package spec

import (
	"fmt"
	"sort"
	"strings"
)

// BlockType is a block format of weights or activations: Block elements
// stored in Bytes bytes (ggml/GGUF's layouts; runtime/ref decodes them).
type BlockType struct {
	Block, Bytes int
	Weight, Act  bool // may be a dtype's weight, act
}

// BlockTypes are the block formats a dtype may name as weight or act.
var BlockTypes = map[string]BlockType{
	"q4_k": {Block: 256, Bytes: 144, Weight: true}, // {half d, dmin; u8 scales[12]; u8 qs[128]}
	"q6_k": {Block: 256, Bytes: 210, Weight: true}, // {u8 ql[128], qh[64]; i8 scales[16]; half d}
	"q8_0": {Block: 32, Bytes: 34, Weight: true},   // {half d; i8 qs[32]}
	"q8_1": {Block: 32, Bytes: 36, Act: true},      // {half d, s; i8 qs[32]} (quant_q8_1's output)
}

func blockTypeList() string {
	var s []string
	for _, n := range sortedKeys(BlockTypes) {
		b := BlockTypes[n]
		s = append(s, fmt.Sprintf("%s (%d elements in %d bytes)", n, b.Block, b.Bytes))
	}
	return strings.Join(s, ", ")
}

// dtypeBlocks validates a dtype's weight_block and act_block: 1 (or
// absent) for element types; a block format's own block size and bytes.
func dtypeBlocks(name string, d *rawDtype, at func(string) Pos) (wblock, ablock int, err error) {
	side := func(typ, key string, block, bytes int, weight bool) (int, error) {
		bt, isBlock := BlockTypes[typ]
		if !isBlock {
			if block != 0 && block != 1 {
				return 0, &Error{at(key + "_block"), fmt.Sprintf("dtype %s: %s_block %d for element type %q: only block formats (%s) have blocks", name, key, block, typ, blockTypeList())}
			}
			return 1, nil
		}
		if weight && !bt.Weight || !weight && !bt.Act {
			return 0, &Error{at(key), fmt.Sprintf("dtype %s: %s %q is not %s format", name, key, typ, map[bool]string{true: "a weight", false: "an activation"}[weight])}
		}
		if block != bt.Block || bytes != bt.Bytes {
			return 0, &Error{at(key), fmt.Sprintf("dtype %s: %s %q with %s_block %d and %s_bytes %d; the format is %d elements in %d bytes", name, key, typ, key, block, key, bytes, bt.Block, bt.Bytes)}
		}
		return block, nil
	}
	if wblock, err = side(d.Weight, "weight", d.WeightBlock, d.WeightBytes, true); err != nil {
		return 0, 0, err
	}
	if ablock, err = side(d.Act, "act", d.ActBlock, d.ActBytes, false); err != nil {
		return 0, 0, err
	}
	if d.Scaled && (wblock > 1 || ablock > 1) {
		return 0, 0, &Error{at("scaled"), fmt.Sprintf("dtype %s: block formats carry their own scales; scaled: true is for e4m3 weights", name)}
	}
	return wblock, ablock, nil
}

// IntDots are the int_dot values of hip archs, by target, and of Vulkan
// device classes (target ""): khr is SPV_KHR_integer_dot_product's OpSDot
// on 4 x 8-bit packed operands (emitted through GL_EXT_spirv_intrinsics;
// the device needs shaderIntegerDotProduct, core in Vulkan 1.3).
var IntDots = map[string][]string{"amdgcn": {"sdot4", "sudot4"}, "cuda": {"dp4a"}, "": {"khr"}}

// intDot validates an arch's int_dot: a hip arch's 4 x int8 dot-product
// instruction, a Vulkan class's (khr), or "" (none: the kernels use plain
// integer math).
func intDot(backend, target, v string, p Pos) (string, error) {
	if v == "" {
		return "", nil
	}
	if backend != BackendHIP {
		target = ""
		if v != "khr" {
			return "", &Error{p, fmt.Sprintf("int_dot %q for a vulkan device class; allowed: khr (SPV_KHR_integer_dot_product) (or none)", v)}
		}
	}
	allowed := IntDots[target]
	sort.Strings(allowed)
	if !contains(allowed, v) {
		return "", &Error{p, fmt.Sprintf("int_dot %q for target %s; allowed: %s (or none)", v, target, strings.Join(allowed, ", "))}
	}
	return v, nil
}

// Coopmats are the coopmat values of Vulkan device classes: nv is
// VK_NV_cooperative_matrix (GL_NV_cooperative_matrix in the shaders; the
// device needs its cooperativeMatrix feature). HIP archs have none.
var Coopmats = []string{"nv"}

// coopmat validates a device class's coopmat: nv, or "" (none).
func coopmat(backend, v string, p Pos) (string, error) {
	if v == "" {
		return "", nil
	}
	if backend != BackendVulkan {
		return "", &Error{p, fmt.Sprintf("coopmat %q for a hip arch; cooperative matrices are a Vulkan device class's fact", v)}
	}
	if !contains(Coopmats, v) {
		return "", &Error{p, fmt.Sprintf("coopmat %q; allowed: %s (VK_NV_cooperative_matrix) (or none)", v, strings.Join(Coopmats, ", "))}
	}
	return v, nil
}
