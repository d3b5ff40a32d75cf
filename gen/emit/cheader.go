package emit

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kgen-dev/kgen/gen/expand"
	"github.com/kgen-dev/kgen/gen/spec"
	"github.com/kgen-dev/kgen/runtime/expr"
)

// CHeaderPath is the C/C++ selection header, relative to generated/.
const CHeaderPath = "kgen_select.h"

// CHeader renders a self-contained C header with the variant table and a
// selection function generated from the same spec rules the Go runtime
// interprets, so C/C++ hosts pick exactly what runtime.Select picks.
// artifactOf maps each variant's key to the artifact that holds it (its
// path and SHA-256 go into the header).
func CHeader(s *spec.Spec, variants []*expand.Variant, artifactOf map[string]*Artifact) ([]byte, error) {
	// Parameter names (all families) and interned strings.
	paramIdx := map[string]int{}
	var params []string
	strs := map[string]bool{}
	for _, v := range variants {
		for k, val := range v.Params {
			if _, ok := paramIdx[k]; !ok {
				paramIdx[k] = -1
				params = append(params, k)
			}
			if _, err := strconv.ParseInt(val, 10, 64); err != nil {
				strs[val] = true
			}
		}
	}
	sort.Strings(params)
	for i, p := range params {
		paramIdx[p] = i
	}
	for name := range s.Dtypes {
		strs[name] = true
	}
	var strList []string
	for k := range strs {
		strList = append(strList, k)
	}
	sort.Strings(strList)
	strID := map[string]int{}
	for i, k := range strList {
		strID[k] = i + 1 // 0 is "no value"
	}

	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	cHeaderPreamble(p)
	p("/* Interned string values (dtypes, layouts, tiles, ...). */\nenum {\n")
	for _, k := range strList {
		p("  KG_S_%s = %d,\n", k, strID[k])
	}
	p("};\n\n/* Parameter slots of kg_variant.p. */\nenum {\n")
	for i, k := range params {
		p("  KG_P_%s = %d,\n", k, i)
	}
	p("  KG_NPARAMS = %d\n};\n\n", len(params))
	arts, artIdx, err := cArtifacts(variants, artifactOf)
	if err != nil {
		return nil, err
	}
	p("/* One row per variant. fam indexes the families (KG_F_<family>), art\n   kg_artifacts: the file holding the variant (a SPIR-V blob for Vulkan, the\n   HIP source for HIP) and its SHA-256, to check before loading it. */\n")
	p("typedef struct {\n  const char* name;\n  const char* family;\n  const char* backend;\n  const char* arch;\n  int fam;\n  int art;\n  long long p[KG_NPARAMS];\n} kg_variant;\n\n")
	p("typedef struct {\n  const char* path;   /* relative to generated/ */\n  const char* sha256; /* lower-case hex */\n} kg_artifact;\n\n")
	famIdx := map[string]int{}
	p("/* Families. */\nenum {\n")
	for i, f := range s.Families {
		famIdx[f.Name] = i
		p("  KG_F_%s = %d,\n", f.Name, i)
	}
	p("  KG_NFAMILIES = %d\n};\n\n", len(s.Families))
	p("#define KG_NVARIANTS %d\n#define KG_NARTIFACTS %d\n\n", len(variants), len(arts))
	end := cData(p, "kg_artifact kg_artifacts[KG_NARTIFACTS]")
	for _, a := range arts {
		p("  {%q, %q},\n", a.Path, a.SHA256())
	}
	end()
	end = cData(p, "kg_variant kg_variants[KG_NVARIANTS]")
	for _, v := range variants {
		vals := make([]string, len(params))
		for i, k := range params {
			val, ok := v.Params[k]
			switch {
			case !ok:
				vals[i] = "0"
			case strID[val] != 0:
				vals[i] = "KG_S_" + val
			default:
				vals[i] = val
			}
		}
		p("  {%q, %q, %q, %q, KG_F_%s, %d, {%s}},\n", v.Name, v.Family.Name, v.Arch.Backend, v.Arch.Name, v.Family.Name, artIdx[v.Key()], strings.Join(vals, ", "))
	}
	end()

	p("/* A device: fill it with kg_arch_device (HIP, by arch name) or\n   kg_vulkan_device (a Vulkan device's properties, matched to its class). */\n")
	p("typedef struct {\n  const char* backend;\n  const char* arch;\n  long long wave, compute_units, shared_memory;\n")
	p("  long long max_workgroup; /* 0: unknown */\n  long long min_subgroup;  /* 0: unknown */\n} kg_device;\n\n")
	p("typedef struct {\n  const char* family;\n  long long dtype; /* KG_S_<dtype> */\n  long long m, n, k;\n  long long align; /* elements; 0: aligned; < 0: KG_INVALID_OP */\n} kg_op;\n\n")
	if err := cArchs(p, s); err != nil {
		return nil, err
	}
	p("static inline long long kg_dtype_fn(int fn, long long dtype) {\n  switch (dtype) {\n")
	for _, name := range sortedRuleKeys(s.Dtypes) {
		d := s.Dtypes[name]
		sc := 0
		if d.Scaled {
			sc = 1
		}
		p("  case KG_S_%s: return fn == 0 ? %d : fn == 1 ? %d : fn == 2 ? %d : fn == 3 ? %d : %d;\n", name, d.WeightBytes, d.ActBytes, sc, max(1, d.WeightBlock), max(1, d.ActBlock))
	}
	p("  default: return 0;\n  }\n}\n\n")
	cArithmetic(p)
	// lets names the contract's lets in scope (C locals L_<name>); model
	// the arch's model constants while its prefer keys are printed (they
	// become literals).
	var lets map[string]bool
	var model *spec.Arch
	cx := func(e *expr.Expr) string {
		return e.CChecked("kg_", func(n string) string {
			switch n {
			case "m", "n", "k":
				return "op->" + n
			case "align":
				return "(op->align > 0 ? op->align : 1048576LL)"
			case "wave", "compute_units", "shared_memory":
				return "d->" + n
			}
			if lets[n] {
				return "L_" + n
			}
			if model != nil {
				if v, ok := model.ModelValue(n); ok {
					return fmt.Sprintf("%dLL", v)
				}
			}
			return fmt.Sprintf("v->p[KG_P_%s]", n)
		}, func(str string) string {
			if id, ok := strID[str]; ok {
				_ = id
				return "KG_S_" + str
			}
			return "(-1LL)" // a string no variant has: never equal
		}, func(fn, arg string) string {
			switch fn {
			case "min", "max", "cdiv":
				return fmt.Sprintf("kg_%s(%s)", fn, arg)
			}
			idx := map[string]int{"bytes": 0, "act_bytes": 1, "scaled": 2, "block": 3, "act_block": 4}[fn]
			return fmt.Sprintf("kg_dtype_fn(%d, %s)", idx, arg)
		})
	}
	cexpr := func(r *spec.Rule) string { return cx(r.Expr) }
	if err := launchContract(p, s, variants, cx, func(m map[string]bool) { lets = m }); err != nil {
		return nil, err
	}
	lets = nil
	for _, f := range s.Families {
		if f.Select == nil {
			continue
		}
		p("/* Family %s. */\n", f.Name)
		for _, fd := range f.FedBy {
			p("/* fed_by: buffer %s is the out buffer of family %s for the op {%s, dtype of the\n   values to convert, m = %s, n = %s, k = %s}: plan both, bind one buffer (runtime.SelectChain). */\n",
				fd.Buffer, fd.Family, fd.Family, cComment(fd.M.Src), cComment(fd.N.Src), cComment(fd.K.Src))
		}
		p("static inline int kg_%s_outside(const kg_op* op, const kg_device* d) {\n  (void)d;\n", f.Name)
		for i, r := range f.Select.Outside {
			p("  if (!(%s)) return %d; /* %s */\n", cexpr(r), i+1, cComment(r.Why))
		}
		p("  return 0;\n}\n\n")
		p("static inline int kg_%s_eligible(const kg_variant* v, const kg_op* op, const kg_device* d) {\n  (void)v; (void)op; (void)d;\n", f.Name)
		for i, r := range f.Select.Eligible {
			p("  if (!(%s)) return %d; /* %s */\n", cexpr(r), i+1, cComment(r.Why))
		}
		cDeviceLimits(p, f)
		p("  return 0;\n}\n\n")
		// Keys: arch prefer first (per arch), then the family's.
		maxArch := 0
		for _, a := range s.Archs {
			if n := len(a.Prefer[f.Name]); n > maxArch {
				maxArch = n
			}
		}
		nkeys := maxArch + len(f.Select.Prefer)
		p("#define KG_%s_NKEYS %d\n", strings.ToUpper(f.Name), nkeys)
		p("static inline void kg_%s_keys(const kg_variant* v, const kg_op* op, const kg_device* d, long long* keys) {\n  int i = 0;\n  (void)v; (void)op; (void)d;\n", f.Name)
		for _, a := range s.Archs {
			rs := a.Prefer[f.Name]
			if len(rs) == 0 {
				continue
			}
			p("  if (strcmp(d->arch, %q) == 0) {\n", a.Name)
			model = a
			for _, r := range rs {
				p("    keys[i++] = %s;\n", cexpr(r))
			}
			model = nil
			p("  }\n")
		}
		p("  while (i < %d) keys[i++] = 0; /* arch files without keys: pad, ties everywhere */\n", maxArch)
		for _, r := range f.Select.Prefer {
			p("  keys[i++] = %s; /* %s */\n", cexpr(r), cComment(r.Why))
		}
		p("}\n\n")
	}
	if err := cSelect(p, s, variants, famIdx); err != nil {
		return nil, err
	}
	cPlan(p, s)
	cCache(p)
	p("#endif /* KGEN_SELECT_H */\n")
	return b.Bytes(), nil
}

// cComment keeps spec text from closing a C comment.
func cComment(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

// cHeaderPreamble prints the header's comment, include guard and status
// codes.
func cHeaderPreamble(p func(string, ...any)) {
	p("%s", `// Code generated by kgen. DO NOT EDIT.
// kgen variant table, selection and launch contracts for C/C++ hosts: the
// same rules as the Go runtime (runtime.Select, runtime.Plan), generated from
// templates/kernels.yaml and templates/archs/*.yaml. C11 or C++17; every
// function is static inline and takes no lock (thread-safe: no mutable state).
//
//   kg_device d;
//   if (kg_arch_device("gfx1151:sramecc-:xnack-", &d) != KG_OK) ...  /* feature suffixes are ignored */
//   kg_op op = {"gemv", KG_S_bf16, 1, 151936, 1024, 0};
//   int i = kg_select(&d, &op);           /* >= 0: kg_variants[i]; < 0: a KG_ status */
//   kg_launch l;
//   if (i >= 0 && kg_plan(i, &d, &op, &l) == KG_OK) ...  /* grid, workgroup, buffers, args, spec constants */
//
// Every entry point returns a status (kg_status_str names it) and checks its
// pointers: none dereferences NULL, traps on any input, or reads out of
// bounds (runtime/cheader_test.go runs them on hostile inputs under
// AddressSanitizer and UndefinedBehaviorSanitizer). Select once per layer at
// load time, or per launch through a kg_cache the host owns (kg_select_cached).
//
// The table is large. In C++17 it is an inline variable: one copy per
// program. In C each translation unit that uses it has its own copy, unless
// every unit defines KGEN_SELECT_SHARED and exactly one also defines
// KGEN_SELECT_IMPLEMENTATION before including this header.
#ifndef KGEN_SELECT_H
#define KGEN_SELECT_H

#include <string.h>

/* Status codes (negative; kg_select returns a variant index >= 0 on success). */
#define KG_OK 0
#define KG_NOT_ELIGIBLE (-1)   /* the op is outside the family (use another path: the GEMM path, ...) */
#define KG_NO_VARIANT (-2)     /* no variant of the table serves the op on the device */
#define KG_INVALID_OP (-3)     /* an op field outside its domain (a negative align) or not the variant's family/dtype */
#define KG_UNKNOWN_ARCH (-4)   /* no spec file for the arch, no Vulkan class matches, or backend and arch disagree */
#define KG_UNKNOWN_FAMILY (-5) /* the op's family is not in the table */
#define KG_INVALID_ARG (-6)    /* a NULL pointer, or a variant index outside kg_variants */
#define KG_REFUSED (-7)        /* kg_plan: the variant's rules or the device's limits refuse the op */
#define KG_OUT_OF_RANGE (-8)   /* kg_plan: a size past 32 bits or a grid past the device limits */

static inline const char* kg_status_str(int status) {
  switch (status) {
  case KG_OK: return "ok";
  case KG_NOT_ELIGIBLE: return "not eligible: the op is outside the family (use another path)";
  case KG_NO_VARIANT: return "no variant serves the op on this device";
  case KG_INVALID_OP: return "invalid op";
  case KG_UNKNOWN_ARCH: return "unknown arch or device class";
  case KG_UNKNOWN_FAMILY: return "unknown family";
  case KG_INVALID_ARG: return "invalid argument (NULL pointer or variant index out of range)";
  case KG_REFUSED: return "refused: the variant cannot serve the op on this device";
  case KG_OUT_OF_RANGE: return "out of range: a size past 32 bits or a grid past the limits";
  default: return status >= 0 ? "ok (a variant index)" : "unknown status";
  }
}

/* Tables: one definition per program in C++17, per translation unit in C
   (or one, with KGEN_SELECT_SHARED / KGEN_SELECT_IMPLEMENTATION). */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define KG_DATA inline constexpr
#define KG_DEFINE_DATA 1
#elif defined(KGEN_SELECT_SHARED) && !defined(KGEN_SELECT_IMPLEMENTATION)
#define KG_DATA extern const
#define KG_DEFINE_DATA 0
#elif defined(KGEN_SELECT_SHARED)
#define KG_DATA const
#define KG_DEFINE_DATA 1
#else
#define KG_DATA static const
#define KG_DEFINE_DATA 1
#endif

`)
}

// cData opens a table definition (or, for KGEN_SELECT_SHARED units without
// KGEN_SELECT_IMPLEMENTATION, only declares it) and returns what closes it.
func cData(p func(string, ...any), decl string) (end func()) {
	p("#if KG_DEFINE_DATA\nKG_DATA %s = {\n", decl)
	return func() { p("};\n#else\nKG_DATA %s;\n#endif\n\n", decl) }
}

// cArtifacts lists the artifacts the variants live in, in order of first
// use, and each variant's index among them.
func cArtifacts(variants []*expand.Variant, artifactOf map[string]*Artifact) ([]*Artifact, map[string]int, error) {
	var arts []*Artifact
	index := map[*Artifact]int{}
	of := map[string]int{}
	for _, v := range variants {
		a := artifactOf[v.Key()]
		if a == nil {
			return nil, nil, fmt.Errorf("variant %s has no artifact", v.Key())
		}
		i, ok := index[a]
		if !ok {
			i = len(arts)
			index[a] = i
			arts = append(arts, a)
		}
		of[v.Key()] = i
	}
	return arts, of, nil
}

// cArchs prints the arch and device-class table and the functions that
// make a kg_device: kg_arch_device by name (HIP feature suffixes such as
// ":sramecc-:xnack-" ignored) and kg_vulkan_device by vendor id and driver
// name, with runtime.VulkanDevice's precedence.
func cArchs(p func(string, ...any), s *spec.Spec) error {
	p("/* Archs (HIP) and device classes (Vulkan) with their spec facts; match_vendor\n   and match_driver identify a Vulkan class (0 / \"\": any). */\n")
	p("typedef struct {\n  const char* name;\n  const char* backend;\n  long long wave, compute_units, shared_memory;\n  unsigned match_vendor;\n  const char* match_driver;\n} kg_arch;\n\n")
	p("#define KG_NARCHS %d\n", len(s.Archs))
	end := cData(p, "kg_arch kg_archs[KG_NARCHS]")
	for _, a := range s.Archs {
		var vendor uint32
		driver := ""
		if a.Match != nil {
			vendor, driver = a.Match.VendorID, a.Match.DriverName
		}
		p("  {%q, %q, %d, %d, %d, 0x%xu, %q},\n", a.Name, a.Backend, a.Wave, a.ComputeUnits, a.SharedMemory, vendor, driver)
	}
	end()
	p("%s", `/* The index in kg_archs of an arch name, ignoring a feature suffix
   ("gfx1151:sramecc-:xnack-" is gfx1151, as HIP reports it); -1 if unknown. */
static inline int kg_arch_index(const char* name) {
  size_t n = 0;
  if (!name) return -1;
  while (n < 64 && name[n] != '\0' && name[n] != ':') n++;
  if (n == 0 || n == 64) return -1;
  for (int i = 0; i < KG_NARCHS; i++)
    if (strncmp(kg_archs[i].name, name, n) == 0 && kg_archs[i].name[n] == '\0') return i;
  return -1;
}

static inline void kg_arch_fill(int a, kg_device* out) {
  out->backend = kg_archs[a].backend;
  out->arch = kg_archs[a].name;
  out->wave = kg_archs[a].wave;
  out->compute_units = kg_archs[a].compute_units;
  out->shared_memory = kg_archs[a].shared_memory;
  out->max_workgroup = 0;
  out->min_subgroup = kg_archs[a].wave;
}

/* kg_arch_device fills *out with the spec's facts for an arch or device
   class (runtime.ArchDevice). KG_OK, KG_UNKNOWN_ARCH (no spec file: *out is
   zeroed) or KG_INVALID_ARG (a NULL pointer). */
static inline int kg_arch_device(const char* name, kg_device* out) {
  int a;
  if (!out) return KG_INVALID_ARG;
  memset(out, 0, sizeof *out);
  if (!name) return KG_INVALID_ARG;
  a = kg_arch_index(name);
  if (a < 0) return KG_UNKNOWN_ARCH;
  kg_arch_fill(a, out);
  return KG_OK;
}

/* What kg_vulkan_device needs of a Vulkan device (VkPhysicalDeviceProperties,
   VkPhysicalDeviceDriverProperties, VkPhysicalDeviceSubgroupProperties,
   VkPhysicalDeviceSubgroupSizeControlProperties). */
typedef struct {
  unsigned vendor_id;
  const char* driver_name;         /* VkPhysicalDeviceDriverProperties.driverName; NULL or "": none */
  long long subgroup_size;
  long long min_subgroup_size;     /* 0: unknown (subgroup_size is used) */
  long long max_workgroup_invocations;
  long long max_shared_memory;     /* maxComputeSharedMemorySize */
} kg_vulkan_info;

static inline int kg_ascii_eqfold(const char* a, const char* b) {
  for (int i = 0; i < 256; i++) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = (char)(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = (char)(y - 'A' + 'a');
    if (x != y) return 0;
    if (x == '\0') return 1;
  }
  return 0;
}

/* The Vulkan device class of a device (runtime.VulkanClass): among the
   classes whose match fields all agree with the device, the one matching
   on most fields (vendor and driver, then driver alone, then vendor alone);
   the spec allows no two classes with one match. -1 if none. */
static inline int kg_vulkan_class(unsigned vendor_id, const char* driver_name) {
  int best = -1, best_score = 0;
  for (int i = 0; i < KG_NARCHS; i++) {
    const kg_arch* a = &kg_archs[i];
    int score = 0;
    if (strcmp(a->backend, "vulkan") != 0) continue;
    if (a->match_vendor != 0u) {
      if (a->match_vendor != vendor_id) continue;
      score += 1;
    }
    if (a->match_driver[0] != '\0') {
      if (!driver_name || !kg_ascii_eqfold(a->match_driver, driver_name)) continue;
      score += 2;
    }
    if (score > best_score) { best = i; best_score = score; }
  }
  return best;
}

/* kg_vulkan_device fills *out for a Vulkan device (runtime.VulkanDevice):
   its class's facts with the device's own subgroup size, shared memory and
   workgroup limit. KG_OK, KG_UNKNOWN_ARCH (no class matches: *out is zeroed;
   add a templates/archs file with match: {vendor_id: ...}) or KG_INVALID_ARG. */
static inline int kg_vulkan_device(const kg_vulkan_info* info, kg_device* out) {
  int a;
  if (!out) return KG_INVALID_ARG;
  memset(out, 0, sizeof *out);
  if (!info) return KG_INVALID_ARG;
  a = kg_vulkan_class(info->vendor_id, info->driver_name);
  if (a < 0) return KG_UNKNOWN_ARCH;
  kg_arch_fill(a, out);
  out->wave = info->subgroup_size;
  out->shared_memory = info->max_shared_memory;
  out->max_workgroup = info->max_workgroup_invocations;
  out->min_subgroup = info->min_subgroup_size != 0 ? info->min_subgroup_size : info->subgroup_size;
  return KG_OK;
}

/* kg_resolve checks a host's device: non-NULL names, an arch or class of
   the table, of the backend the device names. It copies the device into
   *out with the table's own strings (so a feature suffix is gone) and
   returns KG_OK, KG_INVALID_ARG or KG_UNKNOWN_ARCH; *arch is the index. */
static inline int kg_resolve(const kg_device* d, kg_device* out, int* arch) {
  int a;
  if (!d || !d->backend || !d->arch) return KG_INVALID_ARG;
  a = kg_arch_index(d->arch);
  if (a < 0 || strcmp(d->backend, kg_archs[a].backend) != 0) return KG_UNKNOWN_ARCH;
  *out = *d;
  out->backend = kg_archs[a].backend;
  out->arch = kg_archs[a].name;
  *arch = a;
  return KG_OK;
}

`)
	// Two classes with one match would make the choice depend on file
	// order: the spec refuses it, and this is the emitter's own check.
	seen := map[string]string{}
	for _, a := range s.Archs {
		if a.Match == nil {
			continue
		}
		k := fmt.Sprintf("%x/%s", a.Match.VendorID, strings.ToLower(a.Match.DriverName))
		if prev, ok := seen[k]; ok {
			return fmt.Errorf("device classes %s and %s have the same match", prev, a.Name)
		}
		seen[k] = a.Name
	}
	return nil
}

// cArithmetic prints the helpers CChecked's C calls: Go's int64 semantics
// (wrapping + - *, MinInt64 / -1 wraps), no trap on a zero divisor (0,
// where Go's evaluator reports an error; gen checks every rule and contract
// for it on the ops and variants they can meet).
func cArithmetic(p func(string, ...any)) {
	p("%s", `/* Rule arithmetic: wraps as Go's int64 does and never traps (a zero
   divisor gives 0; gen refuses rules that can divide by zero). */
static inline long long kg_wrap(unsigned long long x) {
  return x <= 9223372036854775807ULL ? (long long)x : -(long long)(~x) - 1;
}
static inline long long kg_add(long long a, long long b) { return kg_wrap((unsigned long long)a + (unsigned long long)b); }
static inline long long kg_sub(long long a, long long b) { return kg_wrap((unsigned long long)a - (unsigned long long)b); }
static inline long long kg_mul(long long a, long long b) { return kg_wrap((unsigned long long)a * (unsigned long long)b); }
static inline long long kg_neg(long long a) { return kg_wrap(0ULL - (unsigned long long)a); }
static inline long long kg_div(long long a, long long b) {
  if (b == 0) return 0;
  if (b == -1) return kg_neg(a);
  return a / b;
}
static inline long long kg_rem(long long a, long long b) {
  if (b == 0 || b == -1) return 0;
  return a % b;
}
static inline long long kg_min(long long a, long long b) { return a < b ? a : b; }
static inline long long kg_max(long long a, long long b) { return a > b ? a : b; }
/* Division rounded up; 0 for a divisor <= 0 (Go's runtime refuses it). */
static inline long long kg_cdiv(long long a, long long b) { return b <= 0 ? 0 : a <= 0 ? a / b : (a - 1) / b + 1; }

`)
}

// launchContract prints each family's launch contract as C: kg_<family>_launch
// fills a kg_launch (grid, workgroup, buffer sizes in binding order,
// arguments in order for the device's backend, Vulkan specialization
// constants) exactly as runtime.Plan computes it, and kg_workgroup gives the
// workgroup size selection checks against the device. setLets tells cx which
// names are contract lets (C locals).
func launchContract(p func(string, ...any), s *spec.Spec, variants []*expand.Variant, cx func(*expr.Expr) string, setLets func(map[string]bool)) error {
	maxBufs, maxArgs, maxSpec := 1, 1, 1
	for _, f := range s.Families {
		maxBufs = max(maxBufs, len(f.Launch.Buffers))
		maxArgs = max(maxArgs, len(f.Launch.Args))
		maxSpec = max(maxSpec, len(f.VulkanSpecialization))
	}
	// The specialization constants kg_plan computes are the table's: each
	// Vulkan variant's Spec is its family's ids with its parameter values.
	for _, v := range variants {
		if v.Arch.Backend != spec.BackendVulkan {
			continue
		}
		want := specConsts(v.Family)
		if len(v.Spec) != len(want) {
			return fmt.Errorf("%s: %d specialization constants, its family declares %d", v.Key(), len(v.Spec), len(want))
		}
		for i, sc := range v.Spec {
			if sc.ID != want[i].ID || sc.Param != want[i].Param || strconv.FormatUint(uint64(sc.Value), 10) != v.Params[sc.Param] {
				return fmt.Errorf("%s: specialization constant %d (%s=%d) is not its parameter's value", v.Key(), sc.ID, sc.Param, sc.Value)
			}
		}
	}
	p("/* A planned launch (runtime.Plan): groups[3] workgroups of workgroup lanes;\n   buffers in binding order (Vulkan: binding = index) and pointer order\n   (HIP), each at least bytes long (zero: must hold zeros before the first\n   launch; align: its offset must be a multiple of align elements); args\n   are the 32-bit push constants (Vulkan, push_bytes of them) or the int\n   kernel arguments after the pointers (HIP); spec the Vulkan\n   specialization constants (id, 32-bit value) of the pipeline. */\n")
	p("typedef struct {\n  const char* name;\n  const char* dir;  /* in, out, scratch */\n  const char* elem; /* weight, act, f32, u32, or a block format */\n  int binding;\n  long long bytes;\n  long long align;  /* elements */\n  int zero;\n} kg_buffer;\n\n")
	p("typedef struct {\n  unsigned id;\n  unsigned value;\n} kg_spec_const;\n\n")
	p("#define KG_MAX_BUFFERS %d\n#define KG_MAX_ARGS %d\n#define KG_MAX_SPEC %d\n", maxBufs, maxArgs, maxSpec)
	p("typedef struct {\n  long long groups[3];\n  long long workgroups; /* that do work: a folded grid has idle ones past this */\n  long long workgroup;\n  int nbuffers;\n  kg_buffer buffers[KG_MAX_BUFFERS];\n  int nargs;\n  long long args[KG_MAX_ARGS];\n  const char* arg_names[KG_MAX_ARGS];\n  long long push_bytes; /* Vulkan: 4 * nargs */\n  int nspec;\n  kg_spec_const spec[KG_MAX_SPEC];\n  const char* entry;    /* Vulkan: the SPIR-V entry point; HIP: the kernel name */\n} kg_launch;\n\n")
	for _, f := range s.Families {
		c := f.Launch
		lets := map[string]bool{}
		setLets(lets)
		p("/* Launch contract of %s (templates/kernels.yaml): sizes only (kg_plan\n   applies the rules first). Returns KG_OK or KG_OUT_OF_RANGE. */\n", f.Name)
		p("static inline int kg_%s_launch(const kg_variant* v, const kg_device* d, const kg_op* op, kg_launch* l) {\n", f.Name)
		p("  (void)v; (void)d; (void)op;\n")
		for _, lt := range c.Let {
			p("  long long L_%s = %s;\n", lt.Name, cx(lt.Expr))
			lets[lt.Name] = true
		}
		p("  l->workgroup = %s;\n  if (l->workgroup < 1 || l->workgroup > 1048576LL) return KG_OUT_OF_RANGE;\n", cx(c.Workgroup))
		if c.Groups != nil {
			p("  long long n = %s;\n  if (n < 1 || n > 65535LL * 65535LL) return KG_OUT_OF_RANGE;\n", cx(c.Groups))
			p("  long long L_grid_x = n < 65535LL ? n : 65535LL;\n")
			p("  l->groups[0] = L_grid_x; l->groups[1] = (n + L_grid_x - 1) / L_grid_x; l->groups[2] = 1; l->workgroups = n;\n")
			lets["grid_x"] = true
		} else {
			p("  l->workgroups = 1;\n")
			for i, g := range c.Grid {
				hi := "65535LL"
				if i == 0 {
					hi = "2147483647LL"
				}
				p("  l->groups[%d] = %s;\n  if (l->groups[%d] < 1 || l->groups[%d] > %s) return KG_OUT_OF_RANGE;\n  l->workgroups *= l->groups[%d];\n", i, cx(g), i, i, hi, i)
			}
		}
		p("  l->nbuffers = %d;\n", len(c.Buffers))
		for i, b := range c.Buffers {
			zero := 0
			if b.Zero {
				zero = 1
			}
			align := "1LL"
			if b.Align != nil {
				align = cx(b.Align)
			}
			p("  l->buffers[%d].name = %q; l->buffers[%d].dir = %q; l->buffers[%d].elem = %q; l->buffers[%d].binding = %d; l->buffers[%d].zero = %d;\n", i, b.Name, i, b.Dir, i, b.Elem, i, i, i, zero)
			p("  l->buffers[%d].align = %s;\n", i, align)
			p("  l->buffers[%d].bytes = %s;\n  if (l->buffers[%d].bytes < 0 || l->buffers[%d].bytes > 4294967295LL) return KG_OUT_OF_RANGE;\n", i, cx(b.Bytes), i, i)
		}
		p("  l->nargs = 0;\n")
		for _, a := range c.Args {
			cond := ""
			if a.Backend != "" {
				cond = fmt.Sprintf("if (strcmp(d->backend, %q) == 0) ", a.Backend)
			}
			p("  %s{ long long x = %s; if (x < 0 || x > 4294967295LL) return KG_OUT_OF_RANGE; l->arg_names[l->nargs] = %q; l->args[l->nargs++] = x; }\n", cond, cx(a.Expr), a.Name)
		}
		p("  l->push_bytes = 4LL * l->nargs;\n  l->nspec = 0;\n")
		if scs := specConsts(f); len(scs) > 0 {
			p("  if (strcmp(v->backend, \"vulkan\") == 0) {\n")
			for _, sc := range scs {
				val := fmt.Sprintf("v->p[KG_P_%s]", sc.Param)
				if sc.Param == c.WorkgroupParam {
					val = "l->workgroup /* launch.workgroup.param: the planned lanes */"
				}
				p("    l->spec[l->nspec].id = %du; l->spec[l->nspec].value = (unsigned)%s; l->nspec++;\n", sc.ID, val)
			}
			p("  }\n")
		}
		p("  return KG_OK;\n}\n\n")
	}
	setLets(nil)
	p("/* Sizes of v's launch on d for op, by family (no rules). */\nstatic inline int kg_launch_sizes(const kg_variant* v, const kg_device* d, const kg_op* op, kg_launch* l) {\n  switch (v->fam) {\n")
	for _, f := range s.Families {
		p("  case KG_F_%s: return kg_%s_launch(v, d, op, l);\n", f.Name, f.Name)
	}
	p("  default: return KG_UNKNOWN_FAMILY;\n  }\n}\n\n")
	for _, f := range s.Families {
		lets := map[string]bool{}
		setLets(lets)
		p("/* Workgroup size of a %s variant on d (the contract's, for any op). */\n", f.Name)
		p("static inline long long kg_%s_workgroup(const kg_variant* v, const kg_device* d) {\n", f.Name)
		p("  kg_op op0 = {0, 0, 0, 0, 0, 0};\n  const kg_op* op = &op0;\n  (void)v; (void)d; (void)op;\n")
		for _, lt := range f.Launch.Let {
			p("  long long L_%s = %s; (void)L_%s;\n", lt.Name, cx(lt.Expr), lt.Name)
			lets[lt.Name] = true
		}
		p("  return %s;\n}\n\n", cx(f.Launch.Workgroup))
	}
	setLets(nil)
	p("/* Workgroup size of v on d (the contract's, for any op). */\nstatic inline long long kg_workgroup(const kg_variant* v, const kg_device* d) {\n  switch (v->fam) {\n")
	for _, f := range s.Families {
		p("  case KG_F_%s: return kg_%s_workgroup(v, d);\n", f.Name, f.Name)
	}
	p("  default: return 0;\n  }\n}\n\n")
	return nil
}

// cDeviceLimits prints runtime.deviceLimits for an eligibility function:
// a workgroup size of at least 1 and at most the device's, and (Vulkan)
// subgroups of at least 8.
func cDeviceLimits(p func(string, ...any), f *spec.Family) {
	p("  {\n    long long w = kg_%s_workgroup(v, d);\n    if (w < 1) return 102;\n    if (d->max_workgroup > 0 && w > d->max_workgroup) return 100;\n  }\n", f.Name)
	p("  if (strcmp(d->backend, \"vulkan\") == 0 && d->min_subgroup > 0 && d->min_subgroup < 8) return 101;\n")
}

// specConsts are a family's Vulkan specialization constants in id order.
func specConsts(f *spec.Family) []expand.SpecValue {
	var out []expand.SpecValue
	for _, sc := range f.VulkanSpecialization {
		out = append(out, expand.SpecValue{ID: sc.ID, Param: sc.Param})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// cSelect prints the selection index (each (family, arch, dtype)'s
// variants, so a selection looks only at its candidates), kg_family_index
// and kg_select.
func cSelect(p func(string, ...any), s *spec.Spec, variants []*expand.Variant, famIdx map[string]int) error {
	dtypes := sortedRuleKeys(s.Dtypes)
	dtIdx := map[string]int{}
	p("/* Dense dtype index (kg_groups' third subscript); -1 for no dtype. */\n#define KG_NDTYPES %d\nstatic inline int kg_dtype_index(long long dtype) {\n  switch (dtype) {\n", len(dtypes))
	for i, d := range dtypes {
		dtIdx[d] = i
		p("  case KG_S_%s: return %d;\n", d, i)
	}
	p("  default: return -1;\n  }\n}\n\n")
	archIdx := map[string]int{}
	for i, a := range s.Archs {
		archIdx[a.Name] = i
	}
	nf, na, nd := len(s.Families), len(s.Archs), len(dtypes)
	groups := make([][]int, nf*na*nd)
	for i, v := range variants {
		f, ok1 := famIdx[v.Family.Name]
		a, ok2 := archIdx[v.Arch.Name]
		d, ok3 := dtIdx[v.Params["dtype"]]
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("variant %s: family, arch or dtype not in the spec", v.Key())
		}
		g := (f*na+a)*nd + d
		groups[g] = append(groups[g], i)
	}
	idxType := "unsigned short"
	if len(variants) > 65535 {
		idxType = "int"
	}
	p("/* The variants of each (family, arch, dtype), in table order: kg_groups[g]\n   = {first, count} in kg_order, g = (family * KG_NARCHS + arch) * KG_NDTYPES + dtype. */\n")
	end := cData(p, idxType+" kg_order[KG_NVARIANTS]")
	var start []int
	n := 0
	for _, g := range groups {
		start = append(start, n)
		var parts []string
		for _, i := range g {
			parts = append(parts, strconv.Itoa(i))
		}
		n += len(g)
		if len(parts) > 0 {
			p("  %s,\n", strings.Join(parts, ", "))
		}
	}
	end()
	end = cData(p, fmt.Sprintf("int kg_groups[%d][2]", max(len(groups), 1)))
	for gi, g := range groups {
		p("  {%d, %d},\n", start[gi], len(g))
	}
	if len(groups) == 0 {
		p("  {0, 0},\n")
	}
	end()
	p("/* The index of a family by name; -1 if unknown. */\nstatic inline int kg_family_index(const char* name) {\n  if (!name) return -1;\n")
	for _, f := range s.Families {
		p("  if (strcmp(name, %q) == 0) return KG_F_%s;\n", f.Name, f.Name)
	}
	p("  return -1;\n}\n\n")
	for _, f := range s.Families {
		if f.Select == nil {
			continue
		}
		up := strings.ToUpper(f.Name)
		p("static inline int kg_%s_pick(const kg_device* d, const kg_op* op, int arch, int dt) {\n", f.Name)
		p("  long long bk[KG_%s_NKEYS + 1], k[KG_%s_NKEYS + 1];\n  int best = KG_NO_VARIANT;\n  const int* g;\n", up, up)
		p("  if (kg_%s_outside(op, d)) return KG_NOT_ELIGIBLE;\n  if (dt < 0) return KG_NO_VARIANT;\n", f.Name)
		p("  g = kg_groups[(KG_F_%s * KG_NARCHS + arch) * KG_NDTYPES + dt];\n", f.Name)
		p("  for (int j = g[0]; j < g[0] + g[1]; j++) {\n    int i = (int)kg_order[j];\n    const kg_variant* v = &kg_variants[i];\n")
		p("    int cmp;\n    if (kg_%s_eligible(v, op, d)) continue;\n    kg_%s_keys(v, op, d, k);\n", f.Name, f.Name)
		p("    cmp = best < 0 ? -1 : 0; /* lower keys win, earlier keys first, then the name */\n")
		p("    for (int x = 0; cmp == 0 && x < KG_%s_NKEYS; x++) if (k[x] != bk[x]) cmp = k[x] < bk[x] ? -1 : 1;\n", up)
		p("    if (cmp == 0) cmp = strcmp(v->name, kg_variants[best].name);\n")
		p("    if (cmp < 0) { best = i; for (int x = 0; x < KG_%s_NKEYS; x++) bk[x] = k[x]; }\n  }\n  return best;\n}\n\n", up)
	}
	p("%s", `/* kg_select returns the index in kg_variants of the variant the Go runtime's
   Select picks (without a tuning cache or KGEN_FORCE), or a status:
   KG_INVALID_ARG (NULL device, op or op->family; a device without backend or
   arch), KG_INVALID_OP (a negative align, as runtime.Op.Validate refuses),
   KG_UNKNOWN_FAMILY, KG_UNKNOWN_ARCH (an arch or class the table does not
   have, or another backend's), KG_NOT_ELIGIBLE (outside the family: use
   another path) or KG_NO_VARIANT. It looks only at the variants of the op's
   (family, arch, dtype): cost grows with that group, not the table. */
static inline int kg_select(const kg_device* device, const kg_op* op) {
  kg_device dv;
  int arch = -1, f, st;
  if (!device || !op || !op->family) return KG_INVALID_ARG;
  if (!device->backend || !device->arch) return KG_INVALID_ARG;
  if (op->align < 0) return KG_INVALID_OP; /* runtime.Op.Validate */
  f = kg_family_index(op->family);
  if (f < 0) return KG_UNKNOWN_FAMILY;
  st = kg_resolve(device, &dv, &arch);
  if (st != KG_OK) return st;
  switch (f) {
`)
	for _, f := range s.Families {
		if f.Select == nil {
			continue
		}
		p("  case KG_F_%s: return kg_%s_pick(&dv, op, arch, kg_dtype_index(op->dtype));\n", f.Name, f.Name)
	}
	p("  default: return KG_NO_VARIANT;\n  }\n}\n\n")
	return nil
}

// cPlan prints kg_plan: runtime.Plan in C.
func cPlan(p func(string, ...any), s *spec.Spec) {
	p("%s", `/* kg_plan fills *l with the launch of variant kg_variants[variant] on the
   device for op (runtime.Plan): op->family NULL and op->dtype 0 stand for
   the variant's. KG_OK; KG_INVALID_ARG (NULL pointers, variant out of
   range); KG_UNKNOWN_ARCH (see kg_select); KG_INVALID_OP (a negative align,
   or another family or dtype than the variant's); KG_NOT_ELIGIBLE (outside
   the family); KG_REFUSED (the variant's eligibility rules or the device's
   limits refuse it); KG_OUT_OF_RANGE (a size past 32 bits, a grid past
   the limits). On any status but KG_OK, *l is zeroed. */
static inline int kg_plan(int variant, const kg_device* device, const kg_op* op, kg_launch* l) {
  kg_device dv;
  kg_op o;
  const kg_variant* v;
  int arch = -1, st;
  if (!l) return KG_INVALID_ARG;
  memset(l, 0, sizeof *l);
  if (!device || !op || variant < 0 || variant >= KG_NVARIANTS) return KG_INVALID_ARG;
  v = &kg_variants[variant];
  if (!device->backend || !device->arch) return KG_INVALID_ARG;
  st = kg_resolve(device, &dv, &arch);
  if (st != KG_OK) return st;
  o = *op;
  if (!o.family) o.family = v->family;
  if (o.dtype == 0) o.dtype = v->p[KG_P_dtype];
  if (kg_family_index(o.family) != v->fam || o.dtype != v->p[KG_P_dtype]) return KG_INVALID_OP;
  if (o.align < 0) return KG_INVALID_OP;
  switch (v->fam) {
`)
	for _, f := range s.Families {
		if f.Select == nil {
			continue
		}
		p("  case KG_F_%s:\n    if (kg_%s_outside(&o, &dv)) return KG_NOT_ELIGIBLE;\n    if (kg_%s_eligible(v, &o, &dv)) return KG_REFUSED;\n    break;\n", f.Name, f.Name, f.Name)
	}
	p("%s", `  default: break;
  }
  st = kg_launch_sizes(v, &dv, &o, l);
  if (st != KG_OK) { memset(l, 0, sizeof *l); return st; }
  l->entry = strcmp(v->backend, "vulkan") == 0 ? "main" : v->name;
  return KG_OK;
}

`)
}

// cCache prints kg_cache and kg_select_cached: a selection memo the host
// owns (no static mutable state in the header; one cache per thread, or a
// lock around it).
func cCache(p func(string, ...any)) {
	p("%s", `/* An opt-in memo of kg_select results, owned by the host: selection costs
   tens of microseconds per call on the largest groups, a hit tens of
   nanoseconds. Direct-mapped, KG_CACHE_SLOTS entries (define it before
   including to change it); a collision replaces the older entry. Not
   thread-safe: one per thread, or a lock around it. kg_cache_init (or
   zeroing) empties it. */
#ifndef KG_CACHE_SLOTS
#define KG_CACHE_SLOTS 256
#endif
typedef struct {
  int used, fam, arch, result;
  long long dtype, m, n, k, align;
  long long wave, compute_units, shared_memory, max_workgroup, min_subgroup;
} kg_cache_entry;

typedef struct {
  kg_cache_entry slot[KG_CACHE_SLOTS];
  unsigned long long hits, misses;
} kg_cache;

static inline void kg_cache_init(kg_cache* c) {
  if (c) memset(c, 0, sizeof *c);
}

static inline unsigned long long kg_mix(unsigned long long h, long long x) {
  h ^= (unsigned long long)x;
  h *= 0x100000001b3ULL;
  return h ^ (h >> 29);
}

/* kg_select through the host's cache c (NULL: plain kg_select). The same
   answers as kg_select; statuses for NULLs, unknown families and archs are
   returned without touching the cache. */
static inline int kg_select_cached(kg_cache* c, const kg_device* d, const kg_op* op) {
  unsigned long long h = 0xcbf29ce484222325ULL;
  kg_cache_entry* e;
  int f, a, r;
  if (!c) return kg_select(d, op);
  if (!d || !op || !op->family || !d->backend || !d->arch) return KG_INVALID_ARG;
  f = kg_family_index(op->family);
  a = kg_arch_index(d->arch);
  if (f < 0 || a < 0 || strcmp(d->backend, kg_archs[a].backend) != 0) return kg_select(d, op); /* not cached */
  h = kg_mix(kg_mix(kg_mix(kg_mix(kg_mix(h, f), a), op->dtype), op->m), op->n);
  h = kg_mix(kg_mix(kg_mix(kg_mix(h, op->k), op->align), d->wave), d->max_workgroup);
  e = &c->slot[h % KG_CACHE_SLOTS];
  if (e->used && e->fam == f && e->arch == a && e->dtype == op->dtype && e->m == op->m && e->n == op->n &&
      e->k == op->k && e->align == op->align && e->wave == d->wave && e->compute_units == d->compute_units &&
      e->shared_memory == d->shared_memory && e->max_workgroup == d->max_workgroup && e->min_subgroup == d->min_subgroup) {
    c->hits++;
    return e->result;
  }
  r = kg_select(d, op);
  c->misses++;
  e->used = 1; e->fam = f; e->arch = a; e->result = r;
  e->dtype = op->dtype; e->m = op->m; e->n = op->n; e->k = op->k; e->align = op->align;
  e->wave = d->wave; e->compute_units = d->compute_units; e->shared_memory = d->shared_memory;
  e->max_workgroup = d->max_workgroup; e->min_subgroup = d->min_subgroup;
  return r;
}

`)
}
