// A C++17 Vulkan host for kgen's kernels, using only generated/kgen_select.h
// (and examples/common/host_check.h: SHA-256, CPU references). It
//   1. describes the first Vulkan device with kg_vulkan_device (its class by
//      vendor id and driver name, its subgroup size and limits);
//   2. selects a decode GEMV (bf16, 3 tokens) and a Q8_1 quantization (f32
//      rows, K with a tail) with kg_select, and plans them with kg_plan;
//   3. loads each variant's SPIR-V blob from generated/spirv, checks its
//      SHA-256 against kg_artifacts, and builds the pipeline with kg_plan's
//      specialization constants, bindings and push-constant size;
//   4. runs both and compares with the CPU: the GEMV within kgen's bound,
//      the Q8_1 blocks byte for byte.
// Usage: kgen-vulkan-example [GENERATED_DIR]   (default: generated)
// Exit: 0 both match, 1 a mismatch, 2 usage or selection error, 3 no Vulkan
// device or a Vulkan error.
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../common/host_check.h"

namespace {

#define VK_CHECK(call)                                                          \
  do {                                                                          \
    VkResult r_ = (call);                                                       \
    if (r_ != VK_SUCCESS) {                                                     \
      std::fprintf(stderr, "%s:%d: %s: VkResult %d\n", __FILE__, __LINE__, #call, (int)r_); \
      std::exit(3);                                                             \
    }                                                                           \
  } while (0)

// mk returns a zeroed Vulkan struct with its sType set.
template <class T>
T mk(VkStructureType type) {
  T x{};
  x.sType = type;
  return x;
}

struct Gpu {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice phys = VK_NULL_HANDLE;
  VkDevice dev = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties mem{};
  kg_device kdev{};
  std::string name, driver;
};

struct Buf {
  VkBuffer buf = VK_NULL_HANDLE;
  VkDeviceMemory mem = VK_NULL_HANDLE;
  void* map = nullptr;
  VkDeviceSize size = 0;
};

// open_gpu creates an instance and a device on the first physical device and
// describes it for kgen.
bool open_gpu(Gpu* g) {
  auto app = mk<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "kgen-vulkan-example";
  app.apiVersion = VK_API_VERSION_1_2;
  auto ici = mk<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  ici.pApplicationInfo = &app;
  if (vkCreateInstance(&ici, nullptr, &g->instance) != VK_SUCCESS) {
    std::fprintf(stderr, "no Vulkan instance (install a driver: lavapipe is mesa-vulkan-drivers)\n");
    return false;
  }
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(g->instance, &n, nullptr);
  if (n == 0) {
    std::fprintf(stderr, "no Vulkan device\n");
    return false;
  }
  std::vector<VkPhysicalDevice> devs(n);
  vkEnumeratePhysicalDevices(g->instance, &n, devs.data());
  g->phys = devs[0];

  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(g->phys, &base);
  if (VK_API_VERSION_MINOR(base.apiVersion) < 2 && VK_API_VERSION_MAJOR(base.apiVersion) == 1) {
    std::fprintf(stderr, "%s: Vulkan %u.%u; the SPIR-V targets Vulkan 1.2\n", base.deviceName, VK_API_VERSION_MAJOR(base.apiVersion),
                 VK_API_VERSION_MINOR(base.apiVersion));
    return false;
  }
  // Properties kgen needs: vendor, driver name, subgroup sizes, limits.
  auto sizes = mk<VkPhysicalDeviceSubgroupSizeControlProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES);
  auto sub = mk<VkPhysicalDeviceSubgroupProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES);
  auto drv = mk<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
  auto props = mk<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  props.pNext = &drv;
  drv.pNext = &sub;
  if (VK_API_VERSION_MINOR(base.apiVersion) >= 3) sub.pNext = &sizes;  // core in 1.3
  vkGetPhysicalDeviceProperties2(g->phys, &props);
  g->name = props.properties.deviceName;
  g->driver = drv.driverName;

  kg_vulkan_info info{};
  info.vendor_id = props.properties.vendorID;
  info.driver_name = drv.driverName;
  info.subgroup_size = sub.subgroupSize;
  info.min_subgroup_size = sizes.minSubgroupSize;  // 0 when not queried
  info.max_workgroup_invocations = props.properties.limits.maxComputeWorkGroupInvocations;
  info.max_shared_memory = props.properties.limits.maxComputeSharedMemorySize;
  int st = kg_vulkan_device(&info, &g->kdev);
  std::printf("device: %s (driver %s, vendor 0x%x, subgroup %u)", g->name.c_str(), g->driver.c_str(), info.vendor_id, sub.subgroupSize);
  if (st != KG_OK) {
    std::printf("\n");
    std::fprintf(stderr, "kg_vulkan_device: %s: add a templates/archs class with match: {vendor_id: 0x%x}\n", kg_status_str(st), info.vendor_id);
    return false;
  }
  std::printf(" -> kgen class %s\n", g->kdev.arch);

  // A compute queue and the features the kernels use (enabled only where
  // supported: requesting an unsupported one fails vkCreateDevice).
  vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &n, nullptr);
  std::vector<VkQueueFamilyProperties> qf(n);
  vkGetPhysicalDeviceQueueFamilyProperties(g->phys, &n, qf.data());
  bool found = false;
  for (uint32_t i = 0; i < n && !found; i++)
    if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) g->family = i, found = true;
  if (!found) {
    std::fprintf(stderr, "no compute queue\n");
    return false;
  }
  auto have12 = mk<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto have11 = mk<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  auto have = mk<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  have.pNext = &have11;
  have11.pNext = &have12;
  vkGetPhysicalDeviceFeatures2(g->phys, &have);
  auto f12 = mk<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  f12.shaderFloat16 = have12.shaderFloat16;
  f12.shaderInt8 = have12.shaderInt8;
  f12.storageBuffer8BitAccess = have12.storageBuffer8BitAccess;
  f12.uniformAndStorageBuffer8BitAccess = have12.uniformAndStorageBuffer8BitAccess;
  f12.storagePushConstant8 = have12.storagePushConstant8;
  f12.shaderSubgroupExtendedTypes = have12.shaderSubgroupExtendedTypes;
  f12.scalarBlockLayout = have12.scalarBlockLayout;
  auto f11 = mk<VkPhysicalDeviceVulkan11Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES);
  f11.storageBuffer16BitAccess = have11.storageBuffer16BitAccess;
  f11.uniformAndStorageBuffer16BitAccess = have11.uniformAndStorageBuffer16BitAccess;
  f11.storagePushConstant16 = have11.storagePushConstant16;
  f11.pNext = &f12;
  auto feats = mk<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  feats.features.shaderInt16 = have.features.shaderInt16;
  feats.features.shaderInt64 = have.features.shaderInt64;
  feats.features.shaderFloat64 = have.features.shaderFloat64;
  feats.pNext = &f11;
  float prio = 1.0f;
  auto qci = mk<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  qci.queueFamilyIndex = g->family;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  auto dci = mk<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  dci.pNext = &feats;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  VK_CHECK(vkCreateDevice(g->phys, &dci, nullptr, &g->dev));
  vkGetDeviceQueue(g->dev, g->family, 0, &g->queue);
  auto pci = mk<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pci.queueFamilyIndex = g->family;
  VK_CHECK(vkCreateCommandPool(g->dev, &pci, nullptr, &g->pool));
  vkGetPhysicalDeviceMemoryProperties(g->phys, &g->mem);
  return true;
}

Buf new_buffer(Gpu* g, VkDeviceSize size) {
  Buf b;
  b.size = size < 16 ? 16 : size;  // Vulkan has no empty buffers (a 0-byte scale buffer, ...)
  auto bci = mk<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  bci.size = b.size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  VK_CHECK(vkCreateBuffer(g->dev, &bci, nullptr, &b.buf));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(g->dev, b.buf, &req);
  const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  uint32_t type = UINT32_MAX;
  for (uint32_t i = 0; i < g->mem.memoryTypeCount && type == UINT32_MAX; i++)
    if ((req.memoryTypeBits & (1u << i)) && (g->mem.memoryTypes[i].propertyFlags & want) == want) type = i;
  if (type == UINT32_MAX) {
    std::fprintf(stderr, "no host-visible coherent memory (this example maps its buffers)\n");
    std::exit(3);
  }
  auto mai = mk<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  VK_CHECK(vkAllocateMemory(g->dev, &mai, nullptr, &b.mem));
  VK_CHECK(vkBindBufferMemory(g->dev, b.buf, b.mem, 0));
  VK_CHECK(vkMapMemory(g->dev, b.mem, 0, VK_WHOLE_SIZE, 0, &b.map));
  return b;
}

void free_buffer(Gpu* g, Buf* b) {
  vkUnmapMemory(g->dev, b->mem);
  vkDestroyBuffer(g->dev, b->buf, nullptr);
  vkFreeMemory(g->dev, b->mem, nullptr);
}

// run_launch builds the pipeline of variant v from its checked blob with the
// launch's specialization constants, binds bufs (one per kg_plan buffer, at
// its binding), pushes the arguments and dispatches the grid once.
bool run_launch(Gpu* g, const std::string& generated, int v, const kg_launch& l, std::vector<Buf>& bufs) {
  std::vector<unsigned char> blob;
  if (!kgex::load_artifact(generated, v, &blob)) return false;
  std::printf("  blob: %s (%zu bytes), sha256 %.16s... matches kg_artifacts\n", kg_artifacts[kg_variants[v].art].path, blob.size(),
              kg_artifacts[kg_variants[v].art].sha256);
  std::vector<uint32_t> code((blob.size() + 3) / 4);
  std::memcpy(code.data(), blob.data(), blob.size());
  auto smci = mk<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  smci.codeSize = blob.size();
  smci.pCode = code.data();
  VkShaderModule mod;
  VK_CHECK(vkCreateShaderModule(g->dev, &smci, nullptr, &mod));

  std::vector<VkDescriptorSetLayoutBinding> binds((size_t)l.nbuffers);
  for (int i = 0; i < l.nbuffers; i++) {
    binds[(size_t)i] = VkDescriptorSetLayoutBinding{};
    binds[(size_t)i].binding = (uint32_t)l.buffers[i].binding;
    binds[(size_t)i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    binds[(size_t)i].descriptorCount = 1;
    binds[(size_t)i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  auto dslci = mk<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  dslci.bindingCount = (uint32_t)binds.size();
  dslci.pBindings = binds.data();
  VkDescriptorSetLayout dsl;
  VK_CHECK(vkCreateDescriptorSetLayout(g->dev, &dslci, nullptr, &dsl));
  VkPushConstantRange pcr{VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t)l.push_bytes};
  auto plci = mk<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &dsl;
  plci.pushConstantRangeCount = l.push_bytes > 0 ? 1 : 0;
  plci.pPushConstantRanges = &pcr;
  VkPipelineLayout layout;
  VK_CHECK(vkCreatePipelineLayout(g->dev, &plci, nullptr, &layout));

  std::vector<VkSpecializationMapEntry> entries((size_t)l.nspec);
  std::vector<uint32_t> values((size_t)l.nspec);
  for (int i = 0; i < l.nspec; i++) {
    entries[(size_t)i] = VkSpecializationMapEntry{l.spec[i].id, (uint32_t)(4 * i), 4};
    values[(size_t)i] = l.spec[i].value;
  }
  VkSpecializationInfo si{(uint32_t)entries.size(), entries.data(), values.size() * 4, values.data()};
  auto cpci = mk<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = mod;
  cpci.stage.pName = l.entry;
  cpci.stage.pSpecializationInfo = l.nspec > 0 ? &si : nullptr;
  cpci.layout = layout;
  VkPipeline pipe;
  VK_CHECK(vkCreateComputePipelines(g->dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipe));

  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, (uint32_t)l.nbuffers};
  auto dpci = mk<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &ps;
  VkDescriptorPool dpool;
  VK_CHECK(vkCreateDescriptorPool(g->dev, &dpci, nullptr, &dpool));
  auto dsai = mk<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  dsai.descriptorPool = dpool;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &dsl;
  VkDescriptorSet set;
  VK_CHECK(vkAllocateDescriptorSets(g->dev, &dsai, &set));
  std::vector<VkDescriptorBufferInfo> infos((size_t)l.nbuffers);
  std::vector<VkWriteDescriptorSet> writes((size_t)l.nbuffers);
  for (int i = 0; i < l.nbuffers; i++) {
    infos[(size_t)i] = VkDescriptorBufferInfo{bufs[(size_t)i].buf, 0, VK_WHOLE_SIZE};
    writes[(size_t)i] = mk<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    writes[(size_t)i].dstSet = set;
    writes[(size_t)i].dstBinding = (uint32_t)l.buffers[i].binding;
    writes[(size_t)i].descriptorCount = 1;
    writes[(size_t)i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[(size_t)i].pBufferInfo = &infos[(size_t)i];
  }
  vkUpdateDescriptorSets(g->dev, (uint32_t)writes.size(), writes.data(), 0, nullptr);

  std::vector<uint32_t> push((size_t)l.nargs);
  for (int i = 0; i < l.nargs; i++) push[(size_t)i] = (uint32_t)l.args[i];  // kg_plan checked each fits 32 bits
  auto cbai = mk<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  cbai.commandPool = g->pool;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  VkCommandBuffer cb;
  VK_CHECK(vkAllocateCommandBuffers(g->dev, &cbai, &cb));
  auto cbbi = mk<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  cbbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VK_CHECK(vkBeginCommandBuffer(cb, &cbbi));
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
  vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
  if (l.push_bytes > 0) vkCmdPushConstants(cb, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t)l.push_bytes, push.data());
  vkCmdDispatch(cb, (uint32_t)l.groups[0], (uint32_t)l.groups[1], (uint32_t)l.groups[2]);
  auto mb = mk<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  VK_CHECK(vkEndCommandBuffer(cb));
  auto fci = mk<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  VkFence fence;
  VK_CHECK(vkCreateFence(g->dev, &fci, nullptr, &fence));
  auto sub = mk<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  sub.commandBufferCount = 1;
  sub.pCommandBuffers = &cb;
  VK_CHECK(vkQueueSubmit(g->queue, 1, &sub, fence));
  VK_CHECK(vkWaitForFences(g->dev, 1, &fence, VK_TRUE, 60ull * 1000 * 1000 * 1000));

  vkDestroyFence(g->dev, fence, nullptr);
  vkFreeCommandBuffers(g->dev, g->pool, 1, &cb);
  vkDestroyDescriptorPool(g->dev, dpool, nullptr);
  vkDestroyPipeline(g->dev, pipe, nullptr);
  vkDestroyPipelineLayout(g->dev, layout, nullptr);
  vkDestroyDescriptorSetLayout(g->dev, dsl, nullptr);
  vkDestroyShaderModule(g->dev, mod, nullptr);
  return true;
}

// select_and_plan picks the variant for op and plans its launch, printing
// both; -1 when either fails.
int select_and_plan(const kg_device& d, const kg_op& op, kg_launch* l) {
  int v = kg_select(&d, &op);
  std::printf("%s m=%lld n=%lld k=%lld: ", op.family, op.m, op.n, op.k);
  if (v < 0) {
    std::printf("%s\n", kg_status_str(v));
    return -1;
  }
  std::printf("variant %s\n", kg_variants[v].name);
  int st = kg_plan(v, &d, &op, l);
  if (st != KG_OK) {
    std::printf("  kg_plan: %s\n", kg_status_str(st));
    return -1;
  }
  kgex::print_launch(*l);
  return v;
}

// make_buffers allocates one buffer per planned buffer: inputs copied in,
// the output poisoned (0xFF bytes: NaN for f32, so an unwritten element
// fails), zero scratch zeroed.
std::vector<Buf> make_buffers(Gpu* g, const kg_launch& l, const std::vector<std::vector<unsigned char>>& inputs) {
  std::vector<Buf> bufs;
  size_t in = 0;
  for (int i = 0; i < l.nbuffers; i++) {
    Buf b = new_buffer(g, (VkDeviceSize)l.buffers[i].bytes);
    std::memset(b.map, 0, (size_t)b.size);
    if (std::strcmp(l.buffers[i].dir, "in") == 0) {
      const std::vector<unsigned char>& src = inputs[in++];
      std::memcpy(b.map, src.data(), src.size());
    } else if (std::strcmp(l.buffers[i].dir, "out") == 0) {
      std::memset(b.map, 0xff, (size_t)b.size);
    }
    bufs.push_back(b);
  }
  return bufs;
}

}  // namespace

int main(int argc, char** argv) {
  std::string generated = argc > 1 ? argv[1] : "generated";
  Gpu g;
  if (!open_gpu(&g)) return 3;
  int failures = 0;

  // An op the family does not serve: a status, not a crash.
  {
    kg_op op{"gemv", KG_S_bf16, 9, 4096, 4096, 0};
    std::printf("gemv m=9: kg_select -> %d (%s)\n", kg_select(&g.kdev, &op), kg_status_str(kg_select(&g.kdev, &op)));
  }

  // GEMV: bf16 weights and activations, 3 tokens, f32 output.
  {
    kg_op op{"gemv", KG_S_bf16, 3, 1536, 2048, 0};
    kg_launch l;
    int v = select_and_plan(g.kdev, op, &l);
    if (v < 0) return 2;
    kgex::Rng rng(42);
    std::vector<uint16_t> w((size_t)(op.n * op.k)), x((size_t)(op.m * op.k));
    for (auto& e : w) e = kgex::to_bf16(rng.uniform(-1, 1));
    for (auto& e : x) e = kgex::to_bf16(rng.uniform(-1, 1));
    std::vector<std::vector<unsigned char>> inputs;
    for (int i = 0; i < l.nbuffers; i++) {
      if (std::strcmp(l.buffers[i].dir, "in") != 0) continue;
      std::vector<unsigned char> b((size_t)l.buffers[i].bytes);
      if (std::strcmp(l.buffers[i].name, "W") == 0) std::memcpy(b.data(), w.data(), b.size());
      if (std::strcmp(l.buffers[i].name, "X") == 0) std::memcpy(b.data(), x.data(), b.size());
      inputs.push_back(b);  // "scale": 0 bytes for an unscaled dtype
    }
    std::vector<Buf> bufs = make_buffers(&g, l, inputs);
    if (!run_launch(&g, generated, v, l, bufs)) return 3;
    std::vector<float> y((size_t)(op.m * op.n));
    for (int i = 0; i < l.nbuffers; i++)
      if (std::strcmp(l.buffers[i].dir, "out") == 0) std::memcpy(y.data(), bufs[(size_t)i].map, y.size() * 4);
    kgex::GemvCheck c = kgex::check_gemv(w, x, y, op.m, op.n, op.k);
    std::printf("  compare: L2 error / L2 of sum|x*w| = %.3g, bound 8*2^-24*sqrt(K+1) = %.3g (max |error| %.3g): %s\n", c.l2_ratio, c.bound,
                c.max_abs, c.ok ? "PASS" : "FAIL");
    failures += !c.ok;
    for (auto& b : bufs) free_buffer(&g, &b);
  }

  // Q8_1: 5 rows of f32, K = 4100 (a 4-element tail block padded with zeros).
  {
    kg_op op{"quant_q8_1", KG_S_f32, 5, 1, 4100, 0};
    kg_launch l;
    int v = select_and_plan(g.kdev, op, &l);
    if (v < 0) return 2;
    kgex::Rng rng(7);
    std::vector<float> x((size_t)(op.m * op.k));
    for (auto& e : x) e = rng.uniform(-3, 3);
    for (long long i = 0; i < 32; i++) x[(size_t)(op.k + i)] = 0.0f;          // row 1: an all-zero block
    x[(size_t)(2 * op.k + 64)] = 1000.0f;                                     // row 2: one large element
    std::vector<std::vector<unsigned char>> inputs(1, std::vector<unsigned char>((size_t)l.buffers[0].bytes));
    std::memcpy(inputs[0].data(), x.data(), inputs[0].size());
    std::vector<Buf> bufs = make_buffers(&g, l, inputs);
    if (!run_launch(&g, generated, v, l, bufs)) return 3;
    long long nb = (op.k + 31) / 32, bytes = op.m * nb * 36;
    std::vector<unsigned char> want((size_t)bytes);
    for (long long r = 0; r < op.m; r++) kgex::quantize_q8_1_row(&x[(size_t)(r * op.k)], op.k, &want[(size_t)(r * nb * 36)]);
    const unsigned char* got = nullptr;
    for (int i = 0; i < l.nbuffers; i++)
      if (std::strcmp(l.buffers[i].dir, "out") == 0) got = (const unsigned char*)bufs[(size_t)i].map;
    long long bad = 0, first = -1;
    for (long long i = 0; i < bytes; i++)
      if (got[i] != want[(size_t)i]) bad++, first = first < 0 ? i : first;
    if (bad == 0)
      std::printf("  compare: %lld blocks (%lld bytes) byte-identical to the CPU port: PASS\n", op.m * nb, bytes);
    else
      std::printf("  compare: %lld of %lld bytes differ, first at byte %lld (block %lld): FAIL\n", bad, bytes, first, first / 36);
    failures += bad != 0;
    for (auto& b : bufs) free_buffer(&g, &b);
  }

  vkDestroyCommandPool(g.dev, g.pool, nullptr);
  vkDestroyDevice(g.dev, nullptr);
  vkDestroyInstance(g.instance, nullptr);
  std::printf("%s\n", failures ? "FAIL" : "ok");
  return failures ? 1 : 0;
}
