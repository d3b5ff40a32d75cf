#!/usr/bin/env bash
# Issue 12, 2026-12-05 (one device call): does NVIDIA's Vulkan driver run
# the SMs at the clock CUDA does? Run 2026-12-05a's probe found every
# Vulkan quantizer tile at about the same time per element (35 us at 4096 x
# 4096, f16 or f32, Q8_K or Q8_1, 40 to 101 registers), about twice the
# CUDA port of the same algorithm, while the Vulkan copy reaches 4.19 TB/s.
# Here the same arithmetic-bound kernel (bench/vk/fma.comp, bench/fma.cu:
# 8 chains of f32 FMAs or u32 multiply-adds a lane) runs on both paths,
# with nvidia-smi sampling clocks, P-state, power and throttle reasons
# every 20 ms during each, then a Vulkan quantizer (Q8_K f32 subgroup tile,
# 4096 x 14336) under the same sampling. Then gen verify on the Vulkan path
# for the mmvq family (the t3/t5/t6/t7 tiles, new on the nvidia class).
# Needs bin/gen, bin/vktime, .gl/, bench/vk/*.spv (bash bench/vk-probe-prep.sh).
set -u
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
trap 'tar -C "$out" -czf "$out/r.tgz" r' EXIT
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvcc -O3 -arch=sm_90 -o /tmp/fma bench/fma.cu &
nvidia-smi -q -d PERFORMANCE,CLOCK,POWER > "$r/smi-q.txt" 2>&1
smi() { nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,pstate,power.draw,clocks_throttle_reasons.active --format=csv,noheader -lms 20 > "$r/smi-$1.txt" 2>&1 & echo $!; }
sample() { local name=$1; shift; local p; p=$(smi "$name"); sleep 0.3; timeout 120 "$@" > "$r/$name.txt" 2>&1; echo "exit $?" >> "$r/$name.txt"; sleep 0.2; kill "$p"; }
wait
sample cuda-fma /tmp/fma 400
sample vk-fma bin/vktime -spv bench/vk/fma.spv -push 4096 -buf 4325376 -groups 4224 -rotate-mib 1 -dispatches 400 -reps 3
sample vk-mad bin/vktime -spv bench/vk/fma.spv -spec 0=1 -push 4096 -buf 4325376 -groups 4224 -rotate-mib 1 -dispatches 400 -reps 3
k=14336; xb=$((4096 * k * 4)); nbk=$((k / 256)); bk=$((4096 * nbk)); ykb=$((bk * 292))
sample vk-q8k bin/vktime -spv generated/spirv/quant_q8k_f32_subgroup.spv -spec 0=128,1=4,2=1 -push 4096,$k,$nbk,8 -buf $xb:f32,$ykb -groups $((bk / 8)) -bytes $((xb + ykb)) -rotate-mib 4096 -reps 400
sample cuda-fma2 /tmp/fma 400
for f in cuda-fma vk-fma vk-mad vk-q8k cuda-fma2; do
  echo "== $f"; grep -v '^exit 0' "$r/$f.txt" | head -n 4
  awk -F', ' '{split($2,a," "); if (a[1]+0 > 0) {n++; s+=a[1]; if (a[1]>mx) mx=a[1]; if (mn==""||a[1]<mn) mn=a[1]}; st[$4]++; th[$6]++} END {printf "  sm MHz mean %.0f min %d max %d over %d samples;", s/n, mn, mx, n; for (k in st) printf " %s:%d", k, st[k]; for (k in th) printf " [%s]:%d", k, th[k]; print ""}' "$r/smi-$f.txt"
done | tee "$r/summary.txt"
timeout 240 bin/gen verify --backend vulkan --family mmvq > "$r/verify-vk-mmvq.txt" 2>&1; echo "exit $?" >> "$r/verify-vk-mmvq.txt"
tail -n 3 "$r/verify-vk-mmvq.txt"
