# Sourced by the device run scripts (from the repository root): $out (the
# run's $OUT) and $r (its results folder), the Vulkan loader unpacked from
# .gl/'s .debs when the machine has none, NVIDIA's ICD for the loader.
out=${OUT:-/tmp/kgen-out}; r=$out/r; mkdir -p "$r"
[ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ] || { for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig; }
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
