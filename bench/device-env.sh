# Sourced by the device run scripts (from the repository root): $out (the
# run's $OUT) and $r (its results folder), the Vulkan loader unpacked from
# .gl/'s .debs when the machine has none, NVIDIA's ICD for the loader.
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
[ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ] || { for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig; }
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
# bin/*.xz: binaries carried xz-compressed (the tool's size limit) unpacked
for x in bin/*.xz; do [ -e "$x" ] && xz -d -f "$x"; done; chmod +x bin/* 2> /dev/null

# Helpers of the run scripts (a script may define its own after sourcing):
# pack the results for the device tool (`trap pack EXIT`), a timestamped
# log line, the seconds left before DEADLINE (less 5 to pack up), timeout
# that KILLs a hung process 10 s after its TERM.
pack() { tar -C "$out" -czf "$out/r.tgz" r; }
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$r/log.txt"; }
left() { echo $((${DEADLINE:-560} - SECONDS - 5)); }
timeout() { command timeout -k 10 "$@"; }
# begin: a run script's start: results packed at exit, no tuning cache,
# the card in gpu.txt.
begin() {
  trap pack EXIT
  export KGEN_TUNE_CACHE=off
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$r/gpu.txt"
}
# cublas SHAPES [FORMATS]: bf16 cuBLAS (graph and eager) and copy bandwidth
# into cublas.json / cublas.txt (and the same-size reads of FORMATS' weight
# bytes, e.g. q4_k,q6_k,q8_0), the copy line to the log.
cublas() {
  PYTHONUNBUFFERED=1 timeout 90 python3 bench/cublas.py "$1" "$r/cublas.json" bf16 ${2:-} > "$r/cublas.txt" 2>&1
  tail -n 1 "$r/cublas.txt" | tee -a "$r/log.txt"
}
# memcheck VARIANT...: compute-sanitizer memcheck of `gen verify` on each
# sm90 mmvq variant with only the /tmp/nv part holding it (a lookup in the
# other parts is a harmless NOT_FOUND memcheck would count), into
# memcheck.txt; the count of clean runs to the log.
memcheck() {
  local v m
  for v in "$@"; do
    m=$(cubinof "$v")
    echo "== $v ($m)"
    timeout 60 compute-sanitizer --tool memcheck --print-limit 5 bin/gen verify --backend cuda --arch sm90 --module "$m" --variant "$v" 2>&1 | tail -n 4
  done > "$r/memcheck.txt" 2>&1
  grep -c "ERROR SUMMARY: 0 errors" "$r/memcheck.txt" | sed 's/^/memcheck clean runs: /' | tee -a "$r/log.txt"
}
# cubinof VARIANT [DIR]: the cubin bench/nvcc-split.sh built the sm90 mmvq
# VARIANT into (its parts in DIR, default /tmp/nv).
cubinof() { grep -l "KG_KERNEL[_A-Z]*([0-9, ]*) $1(" "${2:-/tmp/nv}"/mmvq_sm90.*.cu | sed 's/\.cu$/.cubin/'; }
# sass LABEL VARIANT [DIR]: cuobjdump's SASS of the variant (cubinof) into
# sass-[LABEL-]VARIANT.txt, its instruction count to the log.
sass() {
  local f="$r/sass-${1:+$1-}$2.txt"
  cuobjdump -sass -fun "$2" "$(cubinof "$2" "${3:-/tmp/nv}")" > "$f" 2>&1
  log "sass ${1:+$1 }$2: $(grep -c '^ */\*[0-9a-f]*\*/' "$f") instructions"
}
# sassab VARIANT...: sass of each variant from A's parts (/tmp/nvA) and B's
# (nvccab)
sassab() {
  local v
  for v in "$@"; do
    sass A "$v" /tmp/nvA
    sass B "$v"
  done
}
# vkverify SECONDS FILE ARGS...: `bin/gen verify --backend vulkan ARGS`
# into FILE, stopped once it prints its summary (NVIDIA's driver hangs the
# process at exit) or after SECONDS; the summary line goes to the log.
vkverify() {
  local cap=$1 file=$2 p
  shift 2
  "${VKGEN:-bin/gen}" verify --backend vulkan "$@" > "$file" 2>&1 &
  p=$!
  for _ in $(seq 1 "$cap"); do
    sleep 1
    grep -q '^verified' "$file" && break
    kill -0 $p 2> /dev/null || break
  done
  sleep 1; kill -9 $p 2> /dev/null
  grep '^verified' "$file" | tee -a "$r/log.txt"
}
# cudaverify MODULES: CUDA `gen verify --family mmvq` over MODULES (sm90)
# into verify-cuda.txt, its summary and exit status to the log.
cudaverify() {
  timeout 120 bin/gen verify --backend cuda --arch sm90 --module "$1" --family mmvq > "$r/verify-cuda.txt" 2>&1
  echo "exit $?" >> "$r/verify-cuda.txt"
  grep '^verified\|^exit' "$r/verify-cuda.txt" | tee -a "$r/log.txt"
}
# nvccparts SOURCE PARTS DIR: the source through nvcc in PARTS parallel
# parts into DIR (bench/nvcc-split.sh; its stderr to nvcc.txt), echoing the
# comma-separated cubins; fails when nvcc does (callers: X=$(nvccparts ...) || exit 1).
nvccparts() {
  local mods
  log "nvcc" >&2
  mods=$(bash bench/nvcc-split.sh "$1" "$2" "$3" 2> "$r/nvcc.txt")
  [ -n "$mods" ] || { log "nvcc failed" >&2; tail -n 20 "$r/nvcc.txt" >&2; return 1; }
  log "nvcc done" >&2
  echo "$mods"
}
# q4ktiles TILE...: the sm90 Q4_K tensor-core variants of each TILE (mms128,
# ...) at every token count it is built for (1, 2, 4, 8).
q4ktiles() {
  local t k
  for t in "$@"; do for k in 1 2 4 8; do echo "mmvq_q4_k_r16_t${k}_$t"; done; done
}
# regs LABEL REGEX CUBIN...: "LABEL kernel REG:n STACK:n SHARED:n" for each
# kernel matching REGEX in the cubins (cuobjdump's resource usage; no
# group separators, which would shift the name/usage line pairs).
regs() {
  local label=$1 re=$2 f
  shift 2
  for f in "$@"; do
    [ -e "$f" ] || continue
    cuobjdump --dump-resource-usage "$f" 2>/dev/null | grep --no-group-separator -A1 "$re" | paste - - |
      sed -E "s/.*Function (mmvq_[a-z0-9_]*).*(REG:[0-9]+) (STACK:[0-9]+) (SHARED:[0-9]+).*/$label \\1 \\2 \\3 \\4/"
  done
}
# verifyvariants MODULES LABEL VARIANT...: CUDA `gen verify` (GEN, default
# bin/gen) of each sm90 variant over MODULES, one summary line each
# (prefixed LABEL) into verify-cuda.txt and the log.
verifyvariants() {
  local mods=$1 label=$2 v
  shift 2
  for v in "$@"; do
    timeout 60 "${GEN:-bin/gen}" verify --backend cuda --arch sm90 --module "$mods" --variant "$v" 2>&1 | grep "^verified\|FAIL" | head -2 | sed "s/^/$label $v /"
  done | tee -a "$r/verify-cuda.txt" | tee -a "$r/log.txt"
}
# suites SHAPES MODULES FORMAT...: the CUDA mmvq suite of each FORMAT on
# SHAPES (graph-timed, --pair f32, REPS timed repetitions, default 20) while
# DEADLINE allows, into mmvq-cuda-FORMAT.json and .txt.
suites() {
  local shapes=$1 mods=$2 d
  shift 2
  for d in "$@"; do
    [ "$(left)" -gt 30 ] || { log "no time left for the $d suite"; break; }
    timeout "$(left)" bin/gen bench --backend cuda --family mmvq --module "$mods" --reps "${REPS:-20}" --dtypes "$d" \
      --shapes "$shapes" --pair f32 --out "$r/mmvq-cuda-$d.json" > "$r/mmvq-cuda-$d.txt" 2>&1
    log "mmvq cuda $d exit $? ($(grep -c heuristic "$r/mmvq-cuda-$d.txt") cases)"
  done
}
# mmvqnvcc PARTS [nice]: the sm90 mmvq source (in PARTS parts) and
# quant_q8_1's through bench/nvcc-split.sh into /tmp/nv in the background
# (at nice 19 with "nice": CPU only, beside the GPU phases), nv its pid;
# mmvqwait then sets mv and q1 to their modules, 1 when either failed.
mmvqnvcc() {
  local n=; [ "${2:-}" = nice ] && n="nice -n 19"
  log "nvcc (background)"
  ( $n bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip "$1" /tmp/nv > /tmp/nv-mmvq.txt 2> "$r/nvcc.txt"
    $n bash bench/nvcc-split.sh generated/hip/quant_q8_1_sm90.hip 1 /tmp/nv > /tmp/nv-q81.txt 2>> "$r/nvcc.txt" ) &
  nv=$!
}
mmvqwait() {
  wait "$nv"
  mv=$(cat /tmp/nv-mmvq.txt) q1=$(cat /tmp/nv-q81.txt)
  [ -n "$mv" ] && [ -n "$q1" ] || { log "nvcc failed"; return 1; }
  log "nvcc done"
}
# forcedruns PREFIX SHAPES RUN...: for each RUN = SIDE:TILE[:SHAPES] (SIDE
# A, B, C, A2, B2, ...: the modules in $A, $B or $C by its first letter),
# the CUDA Q4_K mmvq bench of TILE alone (KGEN_FORCE; GEN, default bin/gen;
# graph-timed, REPS reps, default 10) on the run's SHAPES or PREFIX's,
# into PREFIX-SIDE-TILE.json and .txt while DEADLINE allows; each exit to
# the log, the results packed after each (the A/B scripts' timed phase).
forcedruns() {
  local prefix=$1 shapes=$2 run side t s m
  shift 2
  for run in "$@"; do
    side=${run%%:*} t=${run#*:} s=$shapes
    case "$t" in *:*) s=${t#*:} t=${t%%:*} ;; esac
    m=${side:0:1}
    [ "$(left)" -gt 30 ] || { log "no time left for $run"; return 0; }
    KGEN_FORCE=mmvq:tile=$t timeout 100 "${GEN:-bin/gen}" bench --backend cuda --family mmvq --module "${!m}" --reps "${REPS:-10}" \
      --dtypes q4_k --shapes "$s" --out "$r/$prefix-$side-$t.json" > "$r/$prefix-$side-$t.txt" 2>&1
    log "$run exit $?"
    pack
  done
}
# q4kbench NAME SHAPES REPS MODULES: the CUDA Q4_K mmvq bench (GEN, default
# bin/gen; graph-timed, every candidate's time) on SHAPES over MODULES while
# DEADLINE allows, into NAME.json and NAME.txt; its exit and cases to the log.
q4kbench() {
  timeout "$(left)" "${GEN:-bin/gen}" bench --backend cuda --family mmvq --module "$4" --reps "$3" --dtypes q4_k \
    --shapes "$2" --out "$r/$1.json" > "$r/$1.txt" 2>&1
  log "$1 exit $? ($(grep -c heuristic "$r/$1.txt") cases)"
}
# vkggml: issue 11's Vulkan peer comparison on ggml's shape (4096 x 14336,
# n = 1..5, 8; Q4_K, Q6_K, Q8_0): kgen's pair (quant_q8_1 + GEMV) and GEMV
# with --timing ggml, candidates narrowed to the OpSDot tiles
# (KGEN_FORCE=mmvq:dot=khr, as in run 05j), then ggml's own Vulkan
# mul_mat_vec (.peers/ggml-vulkan) on the same types: both timed as
# test-backend-ops times an op. Into mmvq-ggml-vulkan.json and
# ggml-quant.txt.
vkggml() {
  log "vulkan ggml shape, --timing ggml"
  KGEN_FORCE=mmvq:dot=khr timeout 120 bin/gen bench --backend vulkan --family mmvq --dtypes q4_k,q6_k,q8_0 --shapes bench/mmvq-ggml.yaml \
    --pair f32 --timing ggml --reps 5 --out "$r/mmvq-ggml-vulkan.json" > "$r/mmvq-ggml-vulkan.txt" 2>&1
  log "vulkan ggml shape exit $?"
  P='^type_a=q(4_K|6_K|8_0),type_b=f32,m=4096,n=[1-58],k=14336,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1,' \
    OUTFILE="$r/ggml-quant.txt" timeout 120 bash .peers/ggml-vulkan/run.sh quant > "$r/ggml-quant-table.txt" 2>&1
  log "ggml quant exit $?"
}
# quantab FAMILIES: gen bench --backend vulkan of the quantizer FAMILIES
# (comma-separated) on bench/quant-shapes-12.yaml, every tile timed, with
# bin/gen-old, bin/gen, bin/gen-old again (A B A) while DEADLINE allows,
# into quant-vk-{old,new,old2}.json / .txt.
quantab() {
  local v b
  for v in old new old2; do
    b=bin/gen; [ "$v" = new ] || b=bin/gen-old
    [ "$(left)" -gt 40 ] || { log "no time left for quant bench $v"; return; }
    timeout 90 $b bench --backend vulkan --family "$1" --dtypes f32,f16,bf16 --quant-shapes bench/quant-shapes-12.yaml \
      --reps 10 --out "$r/quant-vk-$v.json" > "$r/quant-vk-$v.txt" 2>&1
    log "quant bench $v exit $?"
  done
}

# nvccab [PARTS]: A = main's mmvq_sm90.hip (/tmp/srcA as the caller left it,
# else .exp/mmvq_sm90_main.hip carried) and B = the generated one through
# nvcc-split.sh in parallel (PARTS each, default 13); sets A and B to their
# module lists, returns 1 when either fails
nvccab() {
  [ -e /tmp/srcA/mmvq_sm90.hip ] || { mkdir -p /tmp/srcA && cp .exp/mmvq_sm90_main.hip /tmp/srcA/mmvq_sm90.hip; }
  [ -e /tmp/srcA/kgen_hip.h ] || cp generated/hip/kgen_hip.h /tmp/srcA/
  log "nvcc"
  bash bench/nvcc-split.sh /tmp/srcA/mmvq_sm90.hip "${1:-13}" /tmp/nvA > /tmp/nvA.txt 2> "$r/nvcc.txt" &
  bash bench/nvcc-split.sh generated/hip/mmvq_sm90.hip "${1:-13}" /tmp/nv > /tmp/nvB.txt 2>> "$r/nvcc.txt" &
  wait
  A=$(cat /tmp/nvA.txt) B=$(cat /tmp/nvB.txt)
  [ -n "$A" ] && [ -n "$B" ] || { log "nvcc failed"; cat "$r/nvcc.txt"; return 1; }
  log "nvcc done"
}

# q4ksuites MODULES: after an A/B, while DEADLINE allows: bf16 cuBLAS (graph)
# and copy on issue 11's shapes, the Q4_K issue 11 suite (every candidate),
# then the ten-model suite at 3..8 tokens (for benchreport -eval)
q4ksuites() {
  [ "$(left)" -gt 100 ] && cublas bench/mmvq-shapes.yaml
  [ "$(left)" -gt 80 ] && q4kbench mmvq-issue11-q4_k bench/mmvq-shapes.yaml 20 "$1"
  if [ "$(left)" -gt 100 ]; then
    sed 's/^tokens: .*/tokens: [3, 4, 5, 6, 7, 8]/' bench/select-shapes.yaml > /tmp/sel.yaml
    q4kbench mmvq-suite-q4_k /tmp/sel.yaml 10 "$1"
  fi
}
