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
. bench/device-env.sh
trap 'tar -C "$out" -czf "$out/r.tgz" r' EXIT
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
# The Q8_1 f16 lane tile: committed, f16 by unpackHalf2x16 (a bound), and
# unpackHalf2x16 for words of normal halves only (exact by construction).
for k in 4096 14336; do nb=$((k / 32)); blocks=$((4096 * nb)); xb=$((4096 * k * 2)); yb=$((blocks * 36))
  for b in generated/spirv/quant_q8_1_f16_thread.spv bench/vk/exp/quant_q8_1_f16_thread_hwcvt.spv bench/vk/exp/quant_q8_1_f16_thread_hwexact.spv; do
    timeout 60 bin/vktime -reps 10 -spv $b -spec 0=64,1=0,2=1,3=1 -push 4096,$k,$nb,64 -buf $xb:f16,$yb -groups $((blocks / 64)) -bytes $((xb + yb)) >> "$r/f16dec.txt" 2>&1
  done
done
grep "us a dispatch" "$r/f16dec.txt"
# What NVIDIA's compiler made of the quantizers (vktime -ir: the driver's
# internal representations, where it keeps any), for instructions per element.
mkdir -p "$r/ir"
timeout 60 bin/vktime -reps 3 -ir "$r/ir/q81-f16-lane" -spv generated/spirv/quant_q8_1_f16_thread.spv -spec 0=64,1=0,2=1,3=1 -push 4096,4096,128,64 -buf 33554432:f16,18874368 -groups 8192 > "$r/ir.txt" 2>&1
timeout 60 bin/vktime -reps 3 -ir "$r/ir/q8k-f32-sg" -spv generated/spirv/quant_q8k_f32_subgroup.spv -spec 0=128,1=4,2=1 -push 4096,4096,16,8 -buf 67108864:f32,$((65536 * 292)) -groups 8192 >> "$r/ir.txt" 2>&1
timeout 60 bin/vktime -reps 3 -ir "$r/ir/copy" -spv bench/vk/copy.spv -push 1048576 -buf 16777216:f32,16777216 -groups 4096 >> "$r/ir.txt" 2>&1
timeout 60 bin/vktime -reps 3 -ir "$r/ir/fma" -spv bench/vk/fma.spv -push 64 -buf 4325376 -groups 4224 -rotate-mib 1 >> "$r/ir.txt" 2>&1
cat "$r/ir.txt"; ls -la "$r/ir" | head
# MMVQ at 3, 5, 6, 7 tokens: the t3..t7 tiles, then the t8 tiles they
# replaced (gen bench honours KGEN_FORCE since 2026-12-05), ggml-style, same call.
for force in "" mmvq:tokens=8; do
  KGEN_FORCE=$force timeout 90 bin/gen bench --backend vulkan --family mmvq --dtypes q4_k,q6_k --shapes bench/vk-probe-t5.yaml \
    --timing ggml --reps 5 --rounds 2 --out "$r/mmvq-t5${force:+-t8}.json" > "$r/mmvq-t5${force:+-t8}.txt" 2>&1; echo "exit $?" >> "$r/mmvq-t5${force:+-t8}.txt"
done
tail -n 9 "$r"/mmvq-t5*.txt
timeout 240 bin/gen verify --backend vulkan --family mmvq > "$r/verify-vk-mmvq.txt" 2>&1; echo "exit $?" >> "$r/verify-vk-mmvq.txt"
tail -n 3 "$r/verify-vk-mmvq.txt"
