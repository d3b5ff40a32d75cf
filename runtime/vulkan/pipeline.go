package vulkan

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"unsafe"
)

// SpecConst sets one specialization constant. Every constant is 32 bits
// wide (int, uint, or bool as 0/1).
type SpecConst struct {
	ID    uint32
	Value uint32
}

// Pipeline is a compute pipeline whose layout is descriptor set 0 with
// storage buffers at bindings 0..numBuffers-1 and one push-constant range.
type Pipeline struct {
	d          *Device
	pipeline   uint64
	layout     uint64
	setLayout  uint64
	numBuffers int
	pushSize   int
	captured   bool // built with the driver's statistics kept
	capturedIR bool // built with the driver's internal representations kept
}

const spirvMagic = 0x07230203

// capFeatures maps SPIR-V capabilities to the device feature each needs
// (the features OpenDevice enables when the device has them).
var capFeatures = map[uint32]struct {
	name string
	have func(DeviceInfo) bool
}{
	9:    {"shaderFloat16", func(i DeviceInfo) bool { return i.ShaderFloat16 }},
	10:   {"shaderFloat64", func(i DeviceInfo) bool { return i.ShaderFloat64 }},
	11:   {"shaderInt64", func(i DeviceInfo) bool { return i.ShaderInt64 }},
	22:   {"shaderInt16", func(i DeviceInfo) bool { return i.ShaderInt16 }},
	39:   {"shaderInt8", func(i DeviceInfo) bool { return i.ShaderInt8 }},
	4433: {"storageBuffer16BitAccess", func(i DeviceInfo) bool { return i.Storage16Bit }},
	4448: {"storageBuffer8BitAccess", func(i DeviceInfo) bool { return i.Storage8Bit }},
	6016: {"shaderIntegerDotProduct", func(i DeviceInfo) bool { return i.IntegerDotProduct }}, // DotProductInputAll
	6017: {"shaderIntegerDotProduct", func(i DeviceInfo) bool { return i.IntegerDotProduct }}, // DotProductInput4x8Bit
	6018: {"shaderIntegerDotProduct", func(i DeviceInfo) bool { return i.IntegerDotProduct }}, // DotProductInput4x8BitPacked
	6019: {"shaderIntegerDotProduct", func(i DeviceInfo) bool { return i.IntegerDotProduct }}, // DotProduct
	5357: {"cooperativeMatrix", func(i DeviceInfo) bool { return i.CooperativeMatrixNV }},     // CooperativeMatrixNV (VK_NV_cooperative_matrix)
}

// LackedFeatures lists the features of capFeatures the device lacks, sorted.
func LackedFeatures(info DeviceInfo) []string {
	var out []string
	for _, f := range capFeatures {
		if !f.have(info) && !slices.Contains(out, f.name) {
			out = append(out, f.name)
		}
	}
	slices.Sort(out)
	return out
}

// MissingFeatures lists the device features the SPIR-V words' OpCapability
// instructions need and the device lacks (see capFeatures), each once.
func MissingFeatures(info DeviceInfo, code []uint32) []string {
	var out []string
	for k := 5; k < len(code); {
		n, op := int(code[k]>>16), code[k]&0xffff
		if n == 0 {
			break
		}
		if op == 17 && n == 2 && k+1 < len(code) { // OpCapability
			if f, ok := capFeatures[code[k+1]]; ok && !f.have(info) && !slices.Contains(out, f.name) {
				out = append(out, f.name)
			}
		} else if op != 17 && op != 11 && op != 10 { // past the capabilities, extensions and imports
			break
		}
		k += n
	}
	return out
}

// NewPipeline builds a compute pipeline from a SPIR-V module. The module is
// checked for the SPIR-V magic number before it reaches the driver, since
// drivers may crash rather than fail on garbage.
func (d *Device) NewPipeline(spirv []byte, entry string, spec []SpecConst, numBuffers int, pushSize int) (*Pipeline, error) {
	if len(spirv) < 20 || len(spirv)%4 != 0 {
		return nil, fmt.Errorf("vulkan: NewPipeline: SPIR-V length %d is not a multiple of 4 of at least 20 bytes", len(spirv))
	}
	if m := binary.LittleEndian.Uint32(spirv); m != spirvMagic {
		return nil, fmt.Errorf("vulkan: NewPipeline: bad SPIR-V magic %#08x (want %#08x, little-endian)", m, spirvMagic)
	}
	if numBuffers < 0 {
		return nil, fmt.Errorf("vulkan: NewPipeline: negative buffer count %d", numBuffers)
	}
	if pushSize < 0 || pushSize%4 != 0 || pushSize > int(d.info.MaxPushConstantsSize) {
		return nil, fmt.Errorf("vulkan: NewPipeline: push-constant size %d must be a multiple of 4 in [0, %d]", pushSize, d.info.MaxPushConstantsSize)
	}
	if entry == "" {
		entry = "main"
	}
	// pCode must be 4-byte aligned, which a []byte need not be.
	code := make([]uint32, len(spirv)/4)
	for k := range code {
		code[k] = binary.LittleEndian.Uint32(spirv[4*k:])
	}
	if missing := MissingFeatures(d.info, code); len(missing) > 0 {
		return nil, fmt.Errorf("vulkan: NewPipeline: the SPIR-V needs %s, which device %q lacks", strings.Join(missing, ", "), d.info.Name)
	}

	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return nil, err
	}
	p := &Pipeline{d: d, numBuffers: numBuffers, pushSize: pushSize}
	if err := p.create(code, entry, spec); err != nil {
		p.release()
		return nil, err
	}
	d.pipelines[p] = struct{}{}
	return p, nil
}

func (p *Pipeline) create(code []uint32, entry string, spec []SpecConst) error {
	d := p.d
	var pn runtime.Pinner
	defer pn.Unpin()

	bindings := make([]vkDescriptorSetLayoutBinding, p.numBuffers)
	for k := range bindings {
		bindings[k] = vkDescriptorSetLayoutBinding{
			binding:         uint32(k),
			descriptorType:  descriptorTypeStorageBuffer,
			descriptorCount: 1,
			stageFlags:      shaderStageCompute,
		}
	}
	sli := pin(&pn, &vkDescriptorSetLayoutCreateInfo{
		sType:        stDescriptorSetLayoutCreateInfo,
		bindingCount: uint32(len(bindings)),
		pBindings:    pinSlice(&pn, bindings),
	})
	if err := check("vkCreateDescriptorSetLayout", d.fn.CreateDescriptorSetLayout(d.handle, sli, nil, &p.setLayout)); err != nil {
		return err
	}

	pli := pin(&pn, &vkPipelineLayoutCreateInfo{
		sType:          stPipelineLayoutCreateInfo,
		setLayoutCount: 1,
		pSetLayouts:    pin(&pn, &p.setLayout),
	})
	if p.pushSize > 0 {
		pli.pushConstantRangeCount = 1
		pli.pPushConstantRanges = pin(&pn, &vkPushConstantRange{stageFlags: shaderStageCompute, size: uint32(p.pushSize)})
	}
	if err := check("vkCreatePipelineLayout", d.fn.CreatePipelineLayout(d.handle, pli, nil, &p.layout)); err != nil {
		return err
	}

	smi := pin(&pn, &vkShaderModuleCreateInfo{
		sType:    stShaderModuleCreateInfo,
		codeSize: uintptr(4 * len(code)),
		pCode:    pinSlice(&pn, code),
	})
	var module uint64
	if err := check("vkCreateShaderModule", d.fn.CreateShaderModule(d.handle, smi, nil, &module)); err != nil {
		return err
	}
	// The module is only needed while the pipeline is compiled.
	defer d.fn.DestroyShaderModule(d.handle, module, nil)

	stage := vkPipelineShaderStageCreateInfo{
		sType:  stPipelineShaderStageCreateInfo,
		stage:  shaderStageCompute,
		module: module,
		pName:  cstr(&pn, entry),
	}
	if len(spec) > 0 {
		entries := make([]vkSpecializationMapEntry, len(spec))
		data := make([]uint32, len(spec))
		for k, s := range spec {
			entries[k] = vkSpecializationMapEntry{constantID: s.ID, offset: uint32(4 * k), size: 4}
			data[k] = s.Value
		}
		stage.pSpecializationInfo = pin(&pn, &vkSpecializationInfo{
			mapEntryCount: uint32(len(entries)),
			pMapEntries:   pinSlice(&pn, entries),
			dataSize:      uintptr(4 * len(data)),
			pData:         unsafe.Pointer(pinSlice(&pn, data)),
		})
	}
	ci := pin(&pn, &vkComputePipelineCreateInfo{
		sType:  stComputePipelineCreateInfo,
		stage:  stage,
		layout: p.layout,
	})
	if d.capture {
		ci.flags |= pipelineCreateCaptureStatistics
		p.captured = true
	}
	if d.captureIR {
		ci.flags |= pipelineCreateCaptureInternal
		p.capturedIR = true
	}
	return check("vkCreateComputePipelines", d.fn.CreateComputePipelines(d.handle, 0, 1, ci, nil, &p.pipeline))
}

// Destroy releases the pipeline. Calling it twice, or after Device.Close,
// is harmless.
func (p *Pipeline) Destroy() {
	d := p.d
	d.mu.Lock()
	defer d.mu.Unlock()
	p.release()
	delete(d.pipelines, p)
}

// release destroys whatever part of the pipeline exists. Callers hold d.mu
// (or own p exclusively while building it).
func (p *Pipeline) release() {
	d := p.d
	if d.handle == 0 {
		return
	}
	if p.pipeline != 0 {
		d.fn.DestroyPipeline(d.handle, p.pipeline, nil)
	}
	if p.layout != 0 {
		d.fn.DestroyPipelineLayout(d.handle, p.layout, nil)
	}
	if p.setLayout != 0 {
		d.fn.DestroyDescriptorSetLayout(d.handle, p.setLayout, nil)
	}
	p.pipeline, p.layout, p.setLayout = 0, 0, 0
}
