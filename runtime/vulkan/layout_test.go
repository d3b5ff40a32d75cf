package vulkan

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// The layout check has two halves:
//
//   - The Go structs are compared with testdata/layout_lp64.txt, the output of
//     a C program that prints sizeof/_Alignof/offsetof for every struct and
//     field mirrored here, plus the value of every constant in consts.go. It
//     was produced by this test (go test -run TestLayout -update-layout) with
//     gcc 12 and vulkan_core.h 1.3.239 on x86-64 Linux.
//   - When gcc and vulkan_core.h are present (they are in CI), the test
//     writes, compiles and runs that C program again and compares its output
//     with the Go structs, so a wrong golden file cannot hide a mismatch.

var updateLayout = flag.Bool("update-layout", false, "rewrite testdata/layout_lp64.txt from the C compiler")

// layoutStructs lists every C-mirroring struct; TestLayoutCoversAllStructs
// keeps it complete.
var layoutStructs = []any{
	vkApplicationInfo{}, vkInstanceCreateInfo{}, vkExtensionProperties{},
	vkPhysicalDeviceLimits{}, vkPhysicalDeviceSparseProperties{}, vkPhysicalDeviceProperties{},
	vkPhysicalDeviceProperties2{}, vkPhysicalDeviceSubgroupProperties{},
	vkPhysicalDeviceSubgroupSizeControlProperties{}, vkConformanceVersion{},
	vkPhysicalDeviceDriverProperties{}, vkPhysicalDeviceFeatures{}, vkPhysicalDeviceFeatures2{},
	vkPhysicalDeviceVulkan11Features{}, vkPhysicalDeviceVulkan12Features{}, vkExtent3D{},
	vkPhysicalDeviceShaderIntegerDotProductFeatures{},
	vkPhysicalDeviceCooperativeMatrixFeaturesNV{}, vkCooperativeMatrixPropertiesNV{},
	vkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR{}, vkPipelineInfoKHR{},
	vkPipelineExecutablePropertiesKHR{}, vkPipelineExecutableInfoKHR{}, vkPipelineExecutableStatisticKHR{},
	vkPipelineExecutableInternalRepresentationKHR{},
	vkQueueFamilyProperties{}, vkDeviceQueueCreateInfo{}, vkDeviceCreateInfo{}, vkMemoryType{},
	vkMemoryHeap{}, vkPhysicalDeviceMemoryProperties{}, vkBufferCreateInfo{},
	vkMemoryRequirements{}, vkMemoryAllocateInfo{}, vkCommandPoolCreateInfo{},
	vkCommandBufferAllocateInfo{}, vkCommandBufferBeginInfo{}, vkBufferCopy{}, vkSubmitInfo{},
	vkFenceCreateInfo{}, vkShaderModuleCreateInfo{}, vkSpecializationMapEntry{},
	vkSpecializationInfo{}, vkPipelineShaderStageCreateInfo{}, vkComputePipelineCreateInfo{},
	vkDescriptorSetLayoutBinding{}, vkDescriptorSetLayoutCreateInfo{}, vkPushConstantRange{},
	vkPipelineLayoutCreateInfo{}, vkDescriptorPoolSize{}, vkDescriptorPoolCreateInfo{},
	vkDescriptorSetAllocateInfo{}, vkDescriptorBufferInfo{}, vkWriteDescriptorSet{},
	vkMemoryBarrier{}, vkBufferMemoryBarrier{}, vkQueryPoolCreateInfo{},
}

func i64[T ~int | ~int32 | ~uint32 | ~uint64](v T) int64 { return int64(v) }

// layoutConsts pairs each constant in consts.go with its C name.
var layoutConsts = []struct {
	c string
	v int64
}{
	{"VK_STRUCTURE_TYPE_APPLICATION_INFO", stApplicationInfo},
	{"VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO", stInstanceCreateInfo},
	{"VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO", stDeviceQueueCreateInfo},
	{"VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO", stDeviceCreateInfo},
	{"VK_STRUCTURE_TYPE_SUBMIT_INFO", stSubmitInfo},
	{"VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO", stMemoryAllocateInfo},
	{"VK_STRUCTURE_TYPE_FENCE_CREATE_INFO", stFenceCreateInfo},
	{"VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO", stQueryPoolCreateInfo},
	{"VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO", stBufferCreateInfo},
	{"VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO", stShaderModuleCreateInfo},
	{"VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO", stPipelineShaderStageCreateInfo},
	{"VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO", stComputePipelineCreateInfo},
	{"VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO", stPipelineLayoutCreateInfo},
	{"VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO", stDescriptorSetLayoutCreateInfo},
	{"VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO", stDescriptorPoolCreateInfo},
	{"VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO", stDescriptorSetAllocateInfo},
	{"VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET", stWriteDescriptorSet},
	{"VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO", stCommandPoolCreateInfo},
	{"VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO", stCommandBufferAllocateInfo},
	{"VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO", stCommandBufferBeginInfo},
	{"VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER", stBufferMemoryBarrier},
	{"VK_STRUCTURE_TYPE_MEMORY_BARRIER", stMemoryBarrier},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES", stPhysicalDeviceVulkan11Features},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES", stPhysicalDeviceVulkan12Features},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES", stPhysicalDeviceIntegerDotFeatures},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV", stPhysicalDeviceCoopMatrixFeaturesNV},
	{"VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV", stCooperativeMatrixPropertiesNV},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR", stPhysicalDeviceExecPropsFeatures},
	{"VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR", stPipelineInfoKHR},
	{"VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR", stPipelineExecutablePropertiesKHR},
	{"VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR", stPipelineExecutableInfoKHR},
	{"VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR", stPipelineExecutableStatisticKHR},
	{"VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR", stPipelineExecutableInternalReprKHR},
	{"VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR", pipelineCreateCaptureStatistics},
	{"VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR", pipelineCreateCaptureInternal},
	{"VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR", statFormatBool32},
	{"VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR", statFormatInt64},
	{"VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR", statFormatUint64},
	{"VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR", statFormatFloat64},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2", stPhysicalDeviceFeatures2},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2", stPhysicalDeviceProperties2},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES", stPhysicalDeviceSubgroupProperties},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES", stPhysicalDeviceDriverProperties},
	{"VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES", stPhysicalDeviceSubgroupSizeControlP},
	{"VK_SUCCESS", vkSuccess},
	{"VK_NOT_READY", vkNotReady},
	{"VK_TIMEOUT", vkTimeout},
	{"VK_INCOMPLETE", vkIncomplete},
	{"VK_ERROR_DEVICE_LOST", vkErrorDeviceLost},
	{"VK_ERROR_INCOMPATIBLE_DRIVER", -9},
	{"VK_ERROR_INITIALIZATION_FAILED", -3},
	{"VK_API_VERSION_1_2", apiVersion12},
	{"VK_API_VERSION_1_3", apiVersion13},
	{"VK_QUEUE_COMPUTE_BIT", queueComputeBit},
	{"VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT", memoryPropertyDeviceLocal},
	{"VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT", memoryPropertyHostVisible},
	{"VK_MEMORY_PROPERTY_HOST_COHERENT_BIT", memoryPropertyHostCoherent},
	{"VK_MEMORY_PROPERTY_HOST_CACHED_BIT", memoryPropertyHostCached},
	{"VK_MEMORY_HEAP_DEVICE_LOCAL_BIT", 1},
	{"VK_BUFFER_USAGE_TRANSFER_SRC_BIT", bufferUsageTransferSrc},
	{"VK_BUFFER_USAGE_TRANSFER_DST_BIT", bufferUsageTransferDst},
	{"VK_BUFFER_USAGE_STORAGE_BUFFER_BIT", bufferUsageStorageBuffer},
	{"VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT", commandPoolCreateResetCommandBuffer},
	{"VK_COMMAND_POOL_CREATE_TRANSIENT_BIT", 1},
	{"VK_COMMAND_BUFFER_LEVEL_PRIMARY", commandBufferLevelPrimary},
	{"VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT", commandBufferUsageOneTimeSubmit},
	{"VK_DESCRIPTOR_TYPE_STORAGE_BUFFER", descriptorTypeStorageBuffer},
	{"VK_SHADER_STAGE_COMPUTE_BIT", shaderStageCompute},
	{"VK_PIPELINE_BIND_POINT_COMPUTE", pipelineBindPointCompute},
	{"VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT", pipelineStageTopOfPipe},
	{"VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT", pipelineStageComputeShader},
	{"VK_PIPELINE_STAGE_TRANSFER_BIT", pipelineStageTransfer},
	{"VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT", pipelineStageBottomOfPipe},
	{"VK_PIPELINE_STAGE_HOST_BIT", pipelineStageHost},
	{"VK_ACCESS_SHADER_READ_BIT", accessShaderRead},
	{"VK_ACCESS_SHADER_WRITE_BIT", accessShaderWrite},
	{"VK_ACCESS_TRANSFER_READ_BIT", accessTransferRead},
	{"VK_ACCESS_TRANSFER_WRITE_BIT", accessTransferWrite},
	{"VK_ACCESS_HOST_READ_BIT", accessHostRead},
	{"VK_QUERY_TYPE_TIMESTAMP", queryTypeTimestamp},
	{"VK_QUERY_RESULT_64_BIT", queryResult64},
	{"VK_QUERY_RESULT_WAIT_BIT", queryResultWait},
	{"VK_SUBGROUP_FEATURE_BASIC_BIT", subgroupFeatureBasic},
	{"VK_SUBGROUP_FEATURE_VOTE_BIT", subgroupFeatureVote},
	{"VK_SUBGROUP_FEATURE_ARITHMETIC_BIT", subgroupFeatureArithmetic},
	{"VK_SUBGROUP_FEATURE_BALLOT_BIT", subgroupFeatureBallot},
	{"VK_SUBGROUP_FEATURE_SHUFFLE_BIT", subgroupFeatureShuffle},
	{"VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT", subgroupFeatureShuffleRelative},
	{"VK_SUBGROUP_FEATURE_CLUSTERED_BIT", subgroupFeatureClustered},
	{"VK_SUBGROUP_FEATURE_QUAD_BIT", subgroupFeatureQuad},
	{"VK_PHYSICAL_DEVICE_TYPE_CPU", 4},
	{"VK_QUEUE_FAMILY_IGNORED", i64(queueFamilyIgnored)},
	{"VK_WHOLE_SIZE", i64(wholeSize)},
}

// goLayout renders the Go side in the C program's output format.
func goLayout() []string {
	var out []string
	for _, v := range layoutStructs {
		t := reflect.TypeOf(v)
		c := "V" + t.Name()[1:]
		out = append(out, fmt.Sprintf("%s %d %d", c, t.Size(), t.Align()))
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if f.Name == "_" {
				continue
			}
			out = append(out, fmt.Sprintf("%s.%s %d %d", c, strings.TrimSuffix(f.Name, "_"), f.Offset, f.Type.Size()))
		}
	}
	for _, k := range layoutConsts {
		out = append(out, fmt.Sprintf("const %s %d", k.c, k.v))
	}
	return out
}

// cProgram prints the same lines as goLayout, computed by the C compiler.
func cProgram() string {
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <stddef.h>
#include <vulkan/vulkan_core.h>
#define S(T) printf("%s %zu %zu\n", #T, sizeof(T), _Alignof(T));
#define F(T, f) printf("%s.%s %zu %zu\n", #T, #f, offsetof(T, f), sizeof(((T *)0)->f));
#define K(N) printf("const %s %lld\n", #N, (long long)(N));
int main(void) {
`)
	for _, v := range layoutStructs {
		t := reflect.TypeOf(v)
		c := "V" + t.Name()[1:]
		fmt.Fprintf(&b, "S(%s)\n", c)
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.Name != "_" {
				fmt.Fprintf(&b, "F(%s, %s)\n", c, strings.TrimSuffix(f.Name, "_"))
			}
		}
	}
	for _, k := range layoutConsts {
		fmt.Fprintf(&b, "K(%s)\n", k.c)
	}
	b.WriteString("return 0;\n}\n")
	return b.String()
}

// runC compiles and runs cProgram; ok is false when gcc or the header is
// missing.
func runC(t *testing.T) (lines []string, ok bool) {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return nil, false
	}
	if _, err := os.Stat("/usr/include/vulkan/vulkan_core.h"); err != nil {
		return nil, false
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "layout.c"), filepath.Join(dir, "layout")
	if err := os.WriteFile(src, []byte(cProgram()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-std=c11", "-Wall", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).Output()
	if err != nil {
		t.Fatalf("running the layout program: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n"), true
}

func diffLines(t *testing.T, what string, want, got []string) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: %d lines, want %d", what, len(got), len(want))
	}
	bad := 0
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Errorf("%s: got %q, want %q", what, got[i], want[i])
			if bad++; bad > 20 {
				t.Fatal("too many differences")
			}
		}
	}
}

const goldenLayout = "testdata/layout_lp64.txt"

func TestLayout(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Fatal("this package supports 64-bit (LP64) platforms only")
	}
	goLines := goLayout()
	cLines, haveC := runC(t)
	if *updateLayout {
		if !haveC {
			t.Fatal("-update-layout needs gcc and vulkan_core.h")
		}
		if err := os.WriteFile(goldenLayout, []byte(strings.Join(cLines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(goldenLayout)
	if err != nil {
		t.Fatal(err)
	}
	golden := strings.Split(strings.TrimSpace(string(raw)), "\n")
	diffLines(t, "Go vs "+goldenLayout, golden, goLines)
	if haveC {
		diffLines(t, "Go vs C compiler", cLines, goLines)
	} else {
		t.Log("gcc or vulkan_core.h missing: checked against the golden file only")
	}
	t.Logf("checked %d structs and %d constants (%d lines)", len(layoutStructs), len(layoutConsts), len(goLines))
}

// TestLayoutCoversAllStructs fails when structs.go gains a struct that
// layoutStructs does not list.
func TestLayoutCoversAllStructs(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "structs.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					if _, ok := ts.Type.(*ast.StructType); ok {
						declared = append(declared, ts.Name.Name)
					}
				}
			}
		}
	}
	var listed []string
	for _, v := range layoutStructs {
		listed = append(listed, reflect.TypeOf(v).Name())
	}
	slices.Sort(declared)
	slices.Sort(listed)
	if !slices.Equal(declared, listed) {
		t.Fatalf("structs.go declares %v\nlayoutStructs lists %v", declared, listed)
	}
}
