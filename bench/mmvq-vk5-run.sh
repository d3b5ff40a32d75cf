#!/usr/bin/env bash
# Issue 11, 2026-12-05 (part of one device call): kgen's Q4_K mmvq on the
# Vulkan path against ggml's Vulkan mul_mat_vec in the same call, on ggml's
# one quantized decode shape (4096 x 14336) at 1..5 and 8 tokens, both timed
# as test-backend-ops times (gen bench --timing ggml: the op repeated on the
# same buffers in one command buffer, host wall clock / repeats; --pair f32:
# kgen's Q8_1 quantizer before it, as ggml quantizes its f32 activations),
# with the t3/t5 tiles and the Q6_K rule of run 05b in the table.
# Needs bin/gen, .gl/ (loader, unpacked by the caller or here) and
# .peers/ggml-vulkan (carried). Writes into $OUT/r (no archive: the
# caller's script packs r).
set -u
. bench/device-env.sh
export KGEN_TUNE_CACHE=off
timeout 90 bin/gen bench --backend vulkan --family mmvq --dtypes q4_k --shapes bench/mmvq-ggml.yaml --pair f32 \
  --timing ggml --reps 5 --out "$r/mmvq-ggml-vulkan.json" > "$r/mmvq-ggml-vulkan.txt" 2>&1
echo "exit $?" >> "$r/mmvq-ggml-vulkan.txt"
P='^type_a=q4_K,type_b=f32,m=4096,n=[1-58],k=14336,bs=\[1,1\],nr=\[1,1\],per=\[0,1,2,3\],k_v=0,o=1,' \
  OUTFILE="$r/ggml-quant.txt" timeout 90 bash .peers/ggml-vulkan/run.sh quant > "$r/ggml-quant-table.txt" 2>&1
echo "exit $?" >> "$r/ggml-quant-table.txt"
tail -n 8 "$r/mmvq-ggml-vulkan.txt" "$r/ggml-quant-table.txt"
